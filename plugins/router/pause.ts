// A delay that ends early when the request is aborted, rejecting with the abort's own reason.
import { setTimeout as delay } from 'node:timers/promises'

export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  if (ms <= 0) return
  try {
    await delay(ms, undefined, { signal })
  } catch (err) {
    // node:timers rejects with its own AbortError; callers expect the reason the request gave.
    if (signal.aborted) throw signal.reason
    throw err
  }
}
