// Which refusals of a model its fallback may cure: a prompt longer than its context window, or
// content its provider's policy refuses. Any other 4xx is the client's to fix and is not tried elsewhere.
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'

interface FallbackTriggers {
  readonly contextLength: boolean
  readonly contentPolicy: boolean
}

// OpenAI and Azure say it by code; Anthropic ("prompt is too long") and Mistral only in words.
const CONTEXT_LENGTH_CODES = new Set(['context_length_exceeded', 'string_above_max_length'])
const CONTEXT_LENGTH_WORDS = /context length|context window|prompt is too long|too large for model/i
const CONTENT_POLICY_CODES = new Set(['content_policy_violation', 'content_filter'])
const CONTENT_POLICY_WORDS = /content (?:management )?policy|content filter/i

function isRefusal(err: unknown): err is UpstreamError {
  const status = err instanceof UpstreamError ? err.provider?.status : undefined
  return status !== undefined && status >= 400 && status < 500 && status !== 429
}

export function isContextLengthError(err: unknown): boolean {
  return isRefusal(err) && (CONTEXT_LENGTH_CODES.has(err.provider?.code ?? '') || CONTEXT_LENGTH_WORDS.test(err.message))
}

export function isContentPolicyError(err: unknown): boolean {
  return isRefusal(err) && (CONTENT_POLICY_CODES.has(err.provider?.code ?? '') || CONTENT_POLICY_WORDS.test(err.message))
}

/** The predicate the attempt loop asks before it gives up on a candidate. */
export function fallbackTrigger(triggers: FallbackTriggers): ((err: unknown) => boolean) | undefined {
  const { contextLength, contentPolicy } = triggers
  if (!contextLength && !contentPolicy) return undefined
  return (err) => (contextLength && isContextLengthError(err)) || (contentPolicy && isContentPolicyError(err))
}
