// How much of its project's budget a forwarded request holds while it runs: the most it can cost,
// where the request says enough to bound that, else the route's configured ceiling.
//
// The bound is the JSON body's bytes as prompt tokens (the byte-level tokenizers of OpenAI,
// Anthropic and Mistral never make more tokens of a text than it has bytes, and the body's own
// JSON framing outweighs the chat framing a provider adds) plus every output token its limit
// allows, once per choice asked for, at the named model's list price. A model whose output is
// free (an embedding model) needs no output limit.
import { microsOfDollars, priceOf as priceOfTokens } from '../../../proxy/pipeline/price.ts'
import type { Price } from './price.ts'

/** The output limits of Chat Completions and Anthropic's Messages, Chat Completions' newer one, and the Responses API's. */
const OUTPUT_LIMITS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const
/** Answers generated per request: Chat Completions' `n`, the legacy Completions' `best_of`. */
const CHOICES = ['n', 'best_of'] as const

type Fields = Record<string, unknown>

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value)
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined)

/** The largest of the fields' counts, or undefined when none holds one. */
function largest(body: Fields, fields: readonly string[]): number | undefined {
  let most: number | undefined
  for (const field of fields) {
    const value = count(body[field])
    if (value !== undefined) most = Math.max(most ?? 0, value)
  }
  return most
}

/**
 * Micro-dollars a request can cost at most, from its parsed JSON body and its size in bytes;
 * undefined when the body names no priced model, or sets no output limit for a model whose output costs.
 */
export function costBoundMicros(body: unknown, bytes: number, priceOf: (model: string) => Price | undefined): number | undefined {
  if (!isObject(body) || typeof body['model'] !== 'string') return undefined
  const price = priceOf(body['model'])
  if (price === undefined) return undefined
  let outputTokens = 0
  if (price.outputPerMillion > 0) {
    const limit = largest(body, OUTPUT_LIMITS)
    if (limit === undefined) return undefined
    outputTokens = limit * Math.max(1, largest(body, CHOICES) ?? 1)
  }
  return Math.ceil(priceOfTokens(price, { promptTokens: bytes, completionTokens: outputTokens }))
}

export interface Ceilings {
  /** Dollars held by a request whose cost cannot be bounded. */
  readonly dollars: number
  /** The same per `provider/path` prefix. */
  readonly byPath: Readonly<Record<string, number>>
}

/**
 * The ceiling of one provider path, in micro-dollars: that of the longest configured prefix of
 * `provider/path` it falls under, by whole segments (`openai/v1/files` covers `/v1/files/abc`,
 * not `/v1/filesx`), else the default.
 */
export function ceilingMicros(ceilings: Ceilings, provider: string, apiPath: string): number {
  const target = `${provider}${apiPath}`
  let matched: string | undefined
  for (const prefix of Object.keys(ceilings.byPath)) {
    const covers = target === prefix || target.startsWith(`${prefix}/`)
    if (covers && (matched === undefined || prefix.length > matched.length)) matched = prefix
  }
  return microsOfDollars(matched === undefined ? ceilings.dollars : ceilings.byPath[matched]!)
}
