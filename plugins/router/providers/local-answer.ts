// The local provider's answers: plausible English picked by a seeded generator, so the same
// request always gets the same answer. Pure; the streaming and pacing live in local.ts.
import { countTokens } from '../../../workers/count-tokens.ts'
import type { ProviderRequest } from './adapter.ts'

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

/** mulberry32: a tiny seeded generator; Math.random cannot be seeded. */
function seededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function seedOf(request: ProviderRequest): number {
  let hash = 0x811c9dc5
  hash = hashInto(hash, request.model)
  hash = hashInto(hash, request.mode)
  hash = hashInto(hash, String(request.temperature))
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

function render(words: readonly string[], mode: ProviderRequest['mode']): string {
  const text = words.join(' ')
  return mode === 'json' ? JSON.stringify({ answer: text }) : text
}

export interface LocalAnswer {
  readonly text: string
  readonly completionTokens: number
}

/** A deterministic function of model, messages, temperature and mode, never over maxTokens. */
export function simulateAnswer(request: ProviderRequest): LocalAnswer {
  const random = seededRandom(seedOf(request))
  const words = pickWords(Math.min(targetTokens(request, random), request.maxTokens), random)
  let text = render(words, request.mode)
  let tokens = countTokens(text)
  while (tokens > request.maxTokens && words.length > 0) {
    // Dropping as many words as tokens are in excess converges in one or two rounds.
    words.length = Math.max(0, words.length - Math.max(1, tokens - request.maxTokens))
    text = render(words, request.mode)
    tokens = countTokens(text)
  }
  if (tokens > request.maxTokens) {
    text = request.mode === 'json' ? '{}' : ''
    tokens = countTokens(text)
  }
  return { text, completionTokens: tokens }
}
