// An upper bound on the prompt tokens any provider can charge for a request, computed without
// tokenizing. The byte-level BPE tokenizers of OpenAI, Anthropic and Mistral (tekken) never make
// more tokens of a text than it has UTF-8 bytes; the chat framing (role markers, separators,
// reply priming) adds a few per message, bounded here with room to spare. Where the gateway has
// the provider's own tokenizer and has counted the prompt already, the bound is that count plus
// the documented framing, which is far tighter for prose. That count is exact only where the
// counter did not cut a long run into pieces (a cut can let the pieces merge into fewer tokens).
import { Buffer } from 'node:buffer'
import type { Message } from '../../proxy/ai-request.ts'
import type { ModelName } from '../../proxy/models.ts'
import { MESSAGE_OVERHEAD_TOKENS, promptTokensOf } from './context-window.ts'
import { JSON_MODE_INSTRUCTION } from './providers/adapter.ts'
import { RUN_LIMIT } from '../../workers/count-tokens.ts'

/** Framing of one message in any provider's chat format, at most. */
const FRAMING_PER_MESSAGE = 8
/** Framing of the request as a whole (reply priming, the system slot), at most. */
const FRAMING_PER_REQUEST = 16
/** OpenAI primes every reply with three tokens. */
const OPENAI_REPLY_PRIMING = 3
const JSON_INSTRUCTION_BYTES = Buffer.byteLength(`\n\n${JSON_MODE_INSTRUCTION}`, 'utf8')

/** Models whose tokenizer is the o200k encoding the gateway counts with. */
const O200K_MODELS: ReadonlySet<ModelName> = new Set(['gpt-4o', 'gpt-4o-mini'])
/** A run the counter cuts: more than RUN_LIMIT characters without a space, tab or line break. */
const LONG_RUN = new RegExp(`[^ \\t\\n\\r]{${RUN_LIMIT + 1}}`)

export function contentBytes(messages: readonly Message[]): number[] {
  return messages.map((message) => Buffer.byteLength(message.content, 'utf8'))
}

/** The bound from UTF-8 bytes: true for every provider. The json-mode instruction is one more message. */
export function byteBound(bytes: readonly number[], mode: 'text' | 'json'): number {
  let total = FRAMING_PER_REQUEST
  for (const n of bytes) total += n + FRAMING_PER_MESSAGE
  return mode === 'json' ? total + JSON_INSTRUCTION_BYTES + FRAMING_PER_MESSAGE : total
}

/**
 * The bound for the models that may serve the request (the primary and any fallback): the o200k
 * count plus OpenAI's framing when every one of them tokenizes with o200k and exact counts are
 * known, else the byte bound.
 */
export function promptTokensBound(
  models: readonly ModelName[], messages: readonly Message[], bytes: readonly number[], exact: readonly number[] | undefined,
  jsonInstructionTokens: number, mode: 'text' | 'json',
): number {
  const fromBytes = byteBound(bytes, mode)
  if (exact === undefined || !models.every((model) => O200K_MODELS.has(model))) return fromBytes
  if (messages.some((message) => LONG_RUN.test(message.content))) return fromBytes
  const counted = promptTokensOf(exact) + OPENAI_REPLY_PRIMING + (mode === 'json' ? jsonInstructionTokens + MESSAGE_OVERHEAD_TOKENS : 0)
  return Math.min(counted, fromBytes)
}
