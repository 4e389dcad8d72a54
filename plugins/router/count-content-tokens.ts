// Token counts of a prompt's texts (each message's, and the tool definitions), with bounded work:
// the event loop counts short texts until a small time budget is spent, and the worker pool
// counts the rest in tasks of bounded size (count-tokens-in-pool.ts). Every count is exact: what
// it decides (trimming, the context window's verdict, the prompt tokens reported) must not depend
// on how busy the pool is, so a count not done by its deadline fails the request with a
// retryable 503 instead of giving way to an estimate.
import type { Message, ToolDefinition } from '../../proxy/pipeline/ai-request.ts'
import { countTokensInPool } from '../../proxy/pipeline/count-tokens-in-pool.ts'
import { OverloadedError } from '../../proxy/pipeline/errors.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import { countTokens } from '../../workers/count-tokens.ts'

/** Longest message counted on the event loop: about 5 ms at the worst (random CJK), microseconds for prose. */
export const INLINE_MESSAGE_CHARS = 1024
/** Once inline counting has taken this long, the remaining messages go to the pool. */
const INLINE_BUDGET_MS = 2

// System prompts and shared instructions repeat across requests; their counts are remembered.
// Three short messages cost ~15 µs to tokenize, a lookup well under 1 µs.
const MEMO_MAX_CHARS = 4096
const MEMO_MAX_ENTRIES = 10_000
const memo = new Map<string, number>()

function remember(content: string, tokens: number): number {
  if (content.length <= MEMO_MAX_CHARS) {
    // Cleared whole when full: simpler than LRU, and refilled by the traffic that matters.
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear()
    memo.set(content, tokens)
  }
  return tokens
}

/** What the model reads of a message: its text, and the name and input of each tool it called. */
export function tokenTextOf(message: Message): string {
  if (message.toolCalls === undefined) return message.content
  let text = message.content
  for (const call of message.toolCalls) text += `\n${call.name}\n${call.arguments}`
  return text
}

/** Tool definitions as the model reads them: a JSON rendering, close to what providers inject. */
export function toolsTextOf(tools: readonly ToolDefinition[]): string {
  return JSON.stringify(tools)
}

/**
 * Counts in the pool by `timeoutMs` after the call (queue included). Past it, or when a task fails,
 * the other tasks are stopped and the count fails with a 503; a request aborted meanwhile fails
 * with its own reason.
 */
function countInPool(texts: readonly string[], pool: Pick<WorkerPool, 'run'>, signal: AbortSignal, timeoutMs: number): Promise<number[]> {
  const failed = new AbortController()
  const deadline = AbortSignal.timeout(timeoutMs)
  const tasks = AbortSignal.any([signal, deadline, failed.signal])
  return countTokensInPool(texts, pool, {
    signal: () => tasks,
    onTaskError(_texts, err) {
      failed.abort()
      if (signal.aborted || err instanceof OverloadedError) throw err
      const why = deadline.aborted ? `could not be counted within ${timeoutMs / 1000} s` : 'could not be counted'
      throw new OverloadedError(`The prompt's tokens ${why}: the gateway is busy. Retry shortly.`, 1, { cause: err })
    },
  })
}

/** The counts when every text is remembered or short enough to count inline within the budget, else undefined. */
export function countInline(texts: readonly string[]): number[] | undefined {
  const counts = new Array<number>(texts.length)
  const deadline = performance.now() + INLINE_BUDGET_MS
  for (let i = 0; i < texts.length; i++) {
    const content = texts[i] as string
    const known = memo.get(content)
    if (known !== undefined) counts[i] = known
    else if (content.length <= INLINE_MESSAGE_CHARS && performance.now() < deadline) counts[i] = remember(content, countTokens(content))
    else return undefined
  }
  return counts
}

/** Synchronous when every text is remembered or short enough to count inline in the budget; see countInPool for `timeoutMs`. */
export function countContentTokens(
  texts: readonly string[],
  pool: Pick<WorkerPool, 'run'>,
  signal: AbortSignal,
  timeoutMs: number,
): number[] | Promise<number[]> {
  const counts = new Array<number>(texts.length)
  const deadline = performance.now() + INLINE_BUDGET_MS
  const offloaded: number[] = []
  for (let i = 0; i < texts.length; i++) {
    const content = texts[i] as string
    const known = memo.get(content)
    if (known !== undefined) {
      counts[i] = known
    } else if (content.length <= INLINE_MESSAGE_CHARS && performance.now() < deadline) {
      counts[i] = remember(content, countTokens(content))
    } else {
      offloaded.push(i)
    }
  }
  if (offloaded.length === 0) return counts
  return countInPool(
    offloaded.map((i) => texts[i] as string),
    pool,
    signal,
    timeoutMs,
  ).then((pooled) => {
    offloaded.forEach((i, n) => {
      counts[i] = remember(texts[i] as string, pooled[n] as number)
    })
    return counts
  })
}
