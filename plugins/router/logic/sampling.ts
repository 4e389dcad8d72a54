// What a provider is sent of a request's sampling settings, per model: the client's own, and the
// route's default temperature (the spec's 0.7 on its own endpoints) only to a model that takes one.
// The client dialects have no default: a request without temperature or max_tokens is sent none,
// and the provider applies its own. Pure: the model's table entry in, the settings out.
import { DEFAULT_OUTPUT_TOKENS } from '../../../proxy/pipeline/model-entry.ts'
import type { ModelInfo } from '../../../proxy/pipeline/models.ts'

/** The client's temperature; without one, the route's default, unless the model reasons: it takes none. */
export function temperatureFor(info: ModelInfo, temperature: number | undefined, routeDefault: number | undefined): number | undefined {
  if (temperature !== undefined || routeDefault === undefined) return temperature
  return info.capabilities.reasoning ? undefined : routeDefault
}

/**
 * For a provider that needs a bound (Anthropic): the client's, else the longest answer the model
 * gives within what the prompt leaves of its context window (Anthropic refuses more).
 */
export function maxTokensFor(info: ModelInfo, maxTokens: number | undefined, promptTokens: number): number {
  if (maxTokens !== undefined) return maxTokens
  return Math.max(1, Math.min(info.maxOutputTokens, info.contextWindow - promptTokens))
}

/**
 * The room the prompt must leave in the context window for the answer: the client's maximum, else
 * the model's longest answer up to DEFAULT_OUTPUT_TOKENS. Without a maximum the providers answer
 * in what is left, so a long conversation keeps its older turns rather than making room for an
 * answer of a size no one asked for.
 */
export function answerRoom(maxTokens: number | undefined, maxOutputTokens: number): number {
  return maxTokens ?? Math.min(maxOutputTokens, DEFAULT_OUTPUT_TOKENS)
}
