// The local provider's answers: plausible English picked by a seeded generator, so the same
// request always gets the same answer, and tool calls with arguments that fit the tool's schema.
// Pure; the streaming and pacing live in local.ts.
import type { ToolCall, ToolDefinition } from '../../../proxy/pipeline/ai-request.ts'
import type { FinishReason } from '../../../proxy/pipeline/completion.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import type { ProviderRequest } from './adapter.ts'
import { sampleOf } from './schema-sample.ts'
import { seededRandom } from '../../../proxy/kit/seeded-random.ts'

const SENTENCES = [
  'That is a fair question, and the short answer depends on what you need most.',
  'Here is how I would approach it, step by step.',
  'First, look at the inputs you already have and decide which of them matter.',
  'Then compare the options side by side, starting with the simplest one.',
  'A small experiment usually tells you more than a long debate.',
  'Keep the first version modest so that it is easy to change later.',
  'Most teams find that clear names and short functions save time within a week.',
  'If the numbers look surprising, check how they were measured before acting on them.',
  'The main trade-off is between speed today and flexibility tomorrow.',
  'In practice, the second option tends to hold up better as the load grows.',
  'It also helps to write down the assumptions, because they change over time.',
  'You can always revisit the decision once real usage data comes in.',
  'A common mistake is to optimise a step that is not the bottleneck.',
  'Start by measuring where the time actually goes.',
  'For a customer-facing answer, a friendly and direct tone works well.',
  'Be specific about the next step and about when the reader can expect it.',
  'If anything is uncertain, say so plainly rather than guessing.',
  'Short paragraphs and concrete examples make the message easier to follow.',
  'Overall, the plan is sound, and the risks are manageable with a little care.',
  'Let me know if you would like a more detailed walkthrough of any part.',
  'To summarise, pick the simplest approach that meets the requirement and iterate.',
  'Security and privacy deserve attention from the start, not as an afterthought.',
  'Automated tests give you the confidence to change the code without fear.',
  'Small, regular improvements add up faster than occasional large rewrites.',
]
const SENTENCE_WORDS = SENTENCES.map((sentence) => sentence.split(' '))
const SENTENCE_TOKENS = SENTENCES.map((sentence) => countTokens(` ${sentence}`))

// Answers grow with the question, within a band, like a model's do.
const MIN_ANSWER_TOKENS = 16
const MAX_ANSWER_TOKENS = 240
const CHARS_PER_EXTRA_TOKEN = 6
const SEED_SPREAD_TOKENS = 24

/** FNV-1a, 32-bit: fast, and stable across processes and versions. */
function hashInto(hash: number, text: string): number {
  let h = hash
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function seedOf(request: ProviderRequest): number {
  let hash = 0x811c9dc5
  hash = hashInto(hash, request.model)
  hash = hashInto(hash, request.mode)
  hash = hashInto(hash, String(request.temperature))
  if (request.seed !== undefined) hash = hashInto(hash, String(request.seed))
  for (const message of request.messages) {
    hash = hashInto(hash, message.role)
    hash = hashInto(hash, message.content)
  }
  return hash
}

function targetTokens(request: ProviderRequest, random: () => number): number {
  const last = request.messages[request.messages.length - 1]
  const grown = MIN_ANSWER_TOKENS + Math.floor((last?.content.length ?? 0) / CHARS_PER_EXTRA_TOKEN)
  return Math.min(MAX_ANSWER_TOKENS, grown) + Math.floor(random() * SEED_SPREAD_TOKENS)
}

/**
 * Whole seeded sentences while they fit the target, so answers end on a full stop; only a first
 * sentence longer than the target is cut, at about 1.3 tokens per English word.
 */
function pickWords(target: number, random: () => number): string[] {
  const words: string[] = []
  let tokens = 0
  for (;;) {
    const index = Math.floor(random() * SENTENCE_WORDS.length)
    const cost = SENTENCE_TOKENS[index] as number
    const sentence = SENTENCE_WORDS[index] as string[]
    if (tokens + cost <= target) {
      words.push(...sentence)
      tokens += cost
      continue
    }
    if (words.length === 0) words.push(...sentence.slice(0, Math.max(1, Math.floor(target / 1.3))))
    return words
  }
}

function render(words: readonly string[], request: ProviderRequest): string {
  const text = words.join(' ')
  if (request.mode !== 'json') return text
  const schema = request.jsonSchema?.schema
  return JSON.stringify(schema === undefined ? { answer: text } : sampleOf(schema, text))
}

/** The text before the first stop sequence, as a provider ends its answer there. */
function cutAtStop(text: string, stop: readonly string[] | undefined): string {
  let end = text.length
  for (const sequence of stop ?? []) {
    const at = sequence === '' ? -1 : text.indexOf(sequence)
    if (at !== -1 && at < end) end = at
  }
  return end === text.length ? text : text.slice(0, end)
}

/**
 * The tool the model "decides" to call: the one tool_choice names, else the first; with `auto`,
 * only while the last message is not a tool's result, so a tool round trip ends in a text answer.
 */
function toolToCall(request: ProviderRequest): ToolDefinition | undefined {
  const { tools, toolChoice } = request
  if (tools === undefined || tools.length === 0 || toolChoice === 'none') return undefined
  if (typeof toolChoice === 'object') return tools.find((tool) => tool.name === toolChoice.name) ?? tools[0]
  if (toolChoice !== 'required' && request.messages.at(-1)?.role === 'tool') return undefined
  return tools[0]
}

/** The last user message, cut short: the value a local tool call fills its string arguments with. */
function argumentText(request: ProviderRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!
    if (message.role === 'user') return message.content.slice(0, 100)
  }
  return ''
}

interface LocalAnswer {
  readonly text: string
  readonly completionTokens: number
  readonly finishReason: FinishReason
  readonly toolCalls?: readonly ToolCall[]
}

function toolAnswer(request: ProviderRequest, tool: ToolDefinition): LocalAnswer {
  const call: ToolCall = {
    id: `call_${seedOf(request).toString(16).padStart(8, '0')}`,
    name: tool.name,
    arguments: JSON.stringify(sampleOf(tool.parameters, argumentText(request))),
  }
  return { text: '', completionTokens: countTokens(call.name) + countTokens(call.arguments), finishReason: 'tool_calls', toolCalls: [call] }
}

/**
 * A deterministic function of model, messages, temperature, seed, mode and tools; text answers
 * are never over maxTokens.
 */
export function simulateAnswer(request: ProviderRequest): LocalAnswer {
  // Without a maximum the answer's own size bounds it, as a provider's longest answer would.
  const maxTokens = request.maxTokens ?? Number.POSITIVE_INFINITY
  const tool = toolToCall(request)
  if (tool !== undefined) return toolAnswer(request, tool)
  const random = seededRandom(seedOf(request))
  const target = targetTokens(request, random)
  const words = pickWords(Math.min(target, maxTokens), random)
  let text = render(words, request)
  let tokens = countTokens(text)
  while (tokens > maxTokens && words.length > 0) {
    // Dropping as many words as tokens are in excess converges in one or two rounds.
    words.length = Math.max(0, words.length - Math.max(1, tokens - maxTokens))
    text = render(words, request)
    tokens = countTokens(text)
  }
  if (tokens > maxTokens) {
    text = request.mode === 'json' ? '{}' : ''
    tokens = countTokens(text)
  }
  const stopped = request.mode === 'json' ? text : cutAtStop(text, request.stop)
  if (stopped !== text) return { text: stopped, completionTokens: countTokens(stopped), finishReason: 'stop' }
  return { text, completionTokens: tokens, finishReason: target > maxTokens ? 'length' : 'stop' }
}
