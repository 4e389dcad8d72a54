// Token counts of each message's content. Short texts are counted inline; long ones go to the
// worker pool so one large prompt does not stall every other request on the event loop.
import type { Message } from '../../proxy/ai-request.ts'
import type { WorkerPool } from '../../proxy/pool.ts'
import { countTokens } from '../../workers/count-tokens.ts'

// Tokenizing ~16 KB takes about 0.2 ms here, a few times a pool round trip (see TOOLCHAIN.md).
export const POOL_THRESHOLD_CHARS = 16_384

// System prompts and shared instructions repeat across requests; their counts are remembered.
// Three short messages cost ~15 µs to tokenize, a lookup well under 1 µs.
const MEMO_MAX_CHARS = 4096
const MEMO_MAX_ENTRIES = 10_000
const memo = new Map<string, number>()

function countShort(content: string): number {
  if (content.length > MEMO_MAX_CHARS) return countTokens(content)
  let tokens = memo.get(content)
  if (tokens === undefined) {
    tokens = countTokens(content)
    // Cleared whole when full: simpler than LRU, and refilled by the traffic that matters.
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear()
    memo.set(content, tokens)
  }
  return tokens
}

/** Synchronous unless a message is long enough to be worth a worker. */
export function countContentTokens(
  messages: readonly Message[],
  pool: Pick<WorkerPool, 'run'>,
  signal: AbortSignal,
): number[] | Promise<number[]> {
  const counts = new Array<number>(messages.length)
  let offloaded: Promise<void>[] | undefined
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as Message).content
    if (content.length <= POOL_THRESHOLD_CHARS) {
      counts[i] = countShort(content)
    } else {
      offloaded ??= []
      offloaded.push(pool.run('countTokens', content, signal).then((n) => { counts[i] = n }))
    }
  }
  return offloaded === undefined ? counts : Promise.all(offloaded).then(() => counts)
}
