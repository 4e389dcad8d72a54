// An upper bound on the prompt tokens any provider can charge for a request, computed without
// tokenizing. The byte-level BPE tokenizers of OpenAI, Anthropic and Mistral (tekken) never make
// more tokens of a text than it has UTF-8 bytes; images count at the most a model charges for
// one, tool definitions with the largest tool prompt a provider adds, and the chat framing (role
// markers, separators, reply priming) a few tokens per message, bounded here with room to spare.
// Where the gateway has the provider's own tokenizer and has counted the prompt already, the
// bound is that count plus the documented framing, which is far tighter for prose. That count is
// exact only where the counter did not cut a long run into pieces (a cut can let the pieces merge
// into fewer tokens).
import { Buffer } from 'node:buffer'
import type { ModelInfo } from '../../../proxy/pipeline/models.ts'
import { MESSAGE_OVERHEAD_TOKENS, promptTokensOf } from './context-window.ts'
import type { PromptSize } from './prompt-size.ts'
import { JSON_MODE_INSTRUCTION } from '../providers/adapter.ts'
import { hasCutRun } from '../../../workers/count-tokens.ts'

/** Framing of one message in any provider's chat format, at most. */
const FRAMING_PER_MESSAGE = 8
/** Framing of the request as a whole (reply priming, the system slot), at most. */
const FRAMING_PER_REQUEST = 16
/** OpenAI primes every reply with three tokens. */
const OPENAI_REPLY_PRIMING = 3
const JSON_INSTRUCTION_BYTES = Buffer.byteLength(`\n\n${JSON_MODE_INSTRUCTION}`, 'utf8')

/** OpenAI's ids of the models whose tokenizer is the o200k encoding the gateway counts with. */
const O200K_MODELS: ReadonlySet<string> = new Set([
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'o3',
  'o3-mini',
  'o4-mini',
])

/** By what the provider is sent: a table entry may give a built-in's name to another upstream model. */
function countsWithO200k(info: ModelInfo): boolean {
  return info.provider === 'openai' && O200K_MODELS.has(info.upstreamId)
}

export function textBytes(texts: readonly string[]): number[] {
  return texts.map((text) => Buffer.byteLength(text, 'utf8'))
}

/** The bound from a size whose text counts are UTF-8 bytes: true for every provider. */
export function byteBound(bytes: PromptSize, mode: 'text' | 'json'): number {
  let total = FRAMING_PER_REQUEST + bytes.fixedTokens
  for (const n of bytes.messageTokens) total += n + FRAMING_PER_MESSAGE
  return mode === 'json' ? total + JSON_INSTRUCTION_BYTES + FRAMING_PER_MESSAGE : total
}

/**
 * The bound for the models that may serve the request (the primary and any fallback, by their table
 * entries): the o200k
 * count plus OpenAI's framing when every one of them tokenizes with o200k and exact counts are
 * known, else the byte bound.
 */
export function promptTokensBound(
  models: readonly ModelInfo[],
  texts: readonly string[],
  bytes: PromptSize,
  exact: PromptSize | undefined,
  jsonInstructionTokens: number,
  mode: 'text' | 'json',
): number {
  const fromBytes = byteBound(bytes, mode)
  if (exact === undefined || !models.every(countsWithO200k)) return fromBytes
  if (texts.some(hasCutRun)) return fromBytes
  const json = mode === 'json' ? jsonInstructionTokens + MESSAGE_OVERHEAD_TOKENS : 0
  return Math.min(promptTokensOf(exact.messageTokens) + exact.fixedTokens + OPENAI_REPLY_PRIMING + json, fromBytes)
}
