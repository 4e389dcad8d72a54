// The token counts and the model a provider's answer reports, in any of the shapes the three
// providers use: `usage.prompt_tokens`/`completion_tokens`/`total_tokens` (Chat Completions,
// embeddings, Mistral), `usage.input_tokens`/`output_tokens` (Anthropic, OpenAI's Responses), at
// the top of the object or inside `message` (Anthropic's message_start) or `response` (Responses events).

/** What the answer told so far; a later report of a field replaces an earlier one. */
export interface SeenUsage {
  model?: string
  promptTokens?: number
  completionTokens?: number
}

const MODEL_NAME = /^[\w.:@/-]{1,100}$/

type Fields = Record<string, unknown>

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value)
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined)

/** Adds what `answer` (a parsed JSON body or SSE event) reports to `seen`. */
export function readUsage(answer: unknown, seen: SeenUsage): void {
  if (!isObject(answer)) return
  for (const holder of [answer, answer['message'], answer['response']]) {
    if (!isObject(holder)) continue
    const model = holder['model']
    if (typeof model === 'string' && MODEL_NAME.test(model)) seen.model = model
    const usage = holder['usage']
    if (isObject(usage)) readCounts(usage, seen)
  }
}

function readCounts(usage: Fields, seen: SeenUsage): void {
  const prompt = count(usage['prompt_tokens']) ?? count(usage['input_tokens'])
  const total = count(usage['total_tokens'])
  const completion = count(usage['completion_tokens']) ?? count(usage['output_tokens'])
  if (prompt !== undefined) seen.promptTokens = prompt
  if (completion !== undefined) seen.completionTokens = completion
  // Embeddings report prompt and total only: nothing was generated.
  else if (total !== undefined && prompt !== undefined) seen.completionTokens = Math.max(0, total - prompt)
}

/** A usage was found: at least one count. */
export function hasCounts(seen: SeenUsage): boolean {
  return seen.promptTokens !== undefined || seen.completionTokens !== undefined
}
