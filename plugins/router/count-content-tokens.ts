// Token counts of each message's content (and of tool definitions). Short texts are counted
// inline; long ones go to the worker pool so one large prompt does not stall every other request
// on the event loop.
import type { Message, ToolDefinition } from '../../proxy/ai-request.ts'
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

/** Synchronous unless a text is long enough to be worth a worker. */
export function countContentTokens(
  texts: readonly string[],
  pool: Pick<WorkerPool, 'run'>,
  signal: AbortSignal,
): number[] | Promise<number[]> {
  const counts = new Array<number>(texts.length)
  let offloaded: Promise<void>[] | undefined
  for (let i = 0; i < texts.length; i++) {
    const content = texts[i] as string
    if (content.length <= POOL_THRESHOLD_CHARS) {
      counts[i] = countShort(content)
    } else {
      offloaded ??= []
      offloaded.push(pool.run('countTokens', content, signal).then((n) => { counts[i] = n }))
    }
  }
  return offloaded === undefined ? counts : Promise.all(offloaded).then(() => counts)
}
