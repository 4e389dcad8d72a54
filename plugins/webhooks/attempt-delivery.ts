// One delivery attempt: a signed POST of the event, judged by its status alone. Any 2xx is a
// success; anything else, a refused or failed connection, or no answer within the timeout is a
// failed attempt. A 3xx is a failure too: redirects are not followed.
import { request, type Dispatcher } from 'undici'
import type { GatewayEvent } from '../../proxy/stores/events/index.ts'
import { VERSION } from '../../proxy/kit/version.ts'
import type { AttemptResult } from './logic/delivery-states.ts'
import { TargetRefusedError } from './guarded-dispatcher.ts'
import { deliveryHeaders } from './logic/signature.ts'

interface AttemptTarget {
  readonly url: string
  readonly secret: string
  readonly event: GatewayEvent
}

interface AttemptOptions {
  readonly dispatcher: Dispatcher
  /** Unix seconds sent in x-gateway-timestamp and signed by v2. */
  readonly timestampS: number
  readonly timeoutMs: number
  /** Aborts the attempt because the process is stopping; the attempt then rejects with its reason. */
  readonly stop: AbortSignal
}

// The receiver's answer is read only to free the connection; its content is never kept.
const ANSWER_READ_LIMIT_BYTES = 64 * 1024

export async function attemptDelivery(target: AttemptTarget, options: AttemptOptions): Promise<AttemptResult> {
  const body = Buffer.from(JSON.stringify(target.event), 'utf8')
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const started = performance.now()
  const elapsed = () => performance.now() - started
  try {
    const res = await request(target.url, {
      dispatcher: options.dispatcher,
      method: 'POST',
      body,
      headers: { ...deliveryHeaders(target.secret, body, options.timestampS, target.event.id), 'user-agent': `Tollgate-Webhooks/${VERSION}` },
      // One deadline for the whole attempt: connecting, sending, and the answer's head.
      signal: AbortSignal.any([timeout, options.stop]),
    })
    // The status already decided the attempt; an answer body cut short changes nothing.
    await res.body.dump({ limit: ANSWER_READ_LIMIT_BYTES }).catch(() => undefined)
    const code = res.statusCode
    const ok = code >= 200 && code < 300
    const error = ok ? null : code >= 300 && code < 400 ? `redirect not followed (HTTP ${code})` : `HTTP ${code}`
    return { ok, responseCode: code, error, durationMs: elapsed() }
  } catch (err) {
    if (options.stop.aborted) throw options.stop.reason
    return { ok: false, responseCode: null, error: describeFailure(err, timeout.aborted, options.timeoutMs), durationMs: elapsed() }
  }
}

function describeFailure(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (err instanceof TargetRefusedError) return err.message
  if (timedOut) return `no answer within ${timeoutMs} ms`
  const code = (err as { code?: unknown }).code
  return `connection failed (${typeof code === 'string' ? code : (err as Error).name})`
}
