// Token counts of a prompt's texts (each message's, and the tool definitions), with bounded work:
// the event loop counts short texts until a small time budget is spent, and the worker pool
// counts the rest in tasks of bounded size and time. A task that runs out of time leaves its
// texts counted by their UTF-8 bytes, an upper bound, so no content can hold a thread or the loop
// for long.
import { Buffer } from 'node:buffer'
import type { Message, ToolDefinition } from '../../proxy/ai-request.ts'
import type { WorkerPool } from '../../proxy/pool.ts'
import { countTokens } from '../../workers/count-tokens.ts'

/** Longest message counted on the event loop: about 5 ms at the worst (random CJK), microseconds for prose. */
export const INLINE_MESSAGE_CHARS = 1024
/** Once inline counting has taken this long, the remaining messages go to the pool. */
const INLINE_BUDGET_MS = 2
/** Characters per pool task: well under a second at the worst. */
export const TASK_CHARS = 32_768
/** A task still running after this is stopped (its thread is replaced). */
const TASK_TIMEOUT_MS = 1000

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

interface Slice {
  readonly message: number
  readonly text: string
}

/** Cuts a long text at surrogate-safe points into pieces of at most TASK_CHARS. */
function slicesOf(message: number, text: string): Slice[] {
  const slices: Slice[] = []
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + TASK_CHARS, text.length)
    const code = text.charCodeAt(end)
    if (end < text.length && code >= 0xdc00 && code <= 0xdfff) end++
    slices.push({ message, text: text.slice(start, end) })
    start = end
  }
  return slices
}

/** Groups slices into tasks of at most TASK_CHARS characters (a long slice alone). */
function tasksOf(slices: readonly Slice[]): Slice[][] {
  const tasks: Slice[][] = []
  let current: Slice[] = []
  let chars = 0
  for (const slice of slices) {
    if (chars + slice.text.length > TASK_CHARS && current.length > 0) {
      tasks.push(current)
      current = []
      chars = 0
    }
    current.push(slice)
    chars += slice.text.length
  }
  if (current.length > 0) tasks.push(current)
  return tasks
}

async function countInPool(slices: readonly Slice[], counts: number[], pool: Pick<WorkerPool, 'run'>, signal: AbortSignal): Promise<void> {
  await Promise.all(tasksOf(slices).map(async (task) => {
    const texts = task.map((slice) => slice.text)
    let tokens: readonly number[]
    try {
      tokens = await pool.run('countTexts', texts, AbortSignal.any([signal, AbortSignal.timeout(TASK_TIMEOUT_MS)]))
    } catch (err) {
      if (signal.aborted || (err as { name?: string }).name !== 'AbortError') throw err
      tokens = texts.map((text) => Buffer.byteLength(text, 'utf8'))
    }
    task.forEach((slice, i) => { counts[slice.message] = (counts[slice.message] ?? 0) + (tokens[i] as number) })
  }))
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

/** Synchronous when every text is remembered or short enough to count inline in the budget. */
export function countContentTokens(
  texts: readonly string[],
  pool: Pick<WorkerPool, 'run'>,
  signal: AbortSignal,
): number[] | Promise<number[]> {
  const counts = new Array<number>(texts.length)
  const deadline = performance.now() + INLINE_BUDGET_MS
  let offloaded: Slice[] | undefined
  for (let i = 0; i < texts.length; i++) {
    const content = texts[i] as string
    const known = memo.get(content)
    if (known !== undefined) {
      counts[i] = known
    } else if (content.length <= INLINE_MESSAGE_CHARS && performance.now() < deadline) {
      counts[i] = remember(content, countTokens(content))
    } else {
      counts[i] = 0
      offloaded ??= []
      offloaded.push(...slicesOf(i, content))
    }
  }
  if (offloaded === undefined) return counts
  const pending = offloaded
  return countInPool(pending, counts, pool, signal).then(() => {
    for (const { message } of pending) remember(texts[message] as string, counts[message] as number)
    return counts
  })
}
