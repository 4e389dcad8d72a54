// The spec's headers that name the model and its prompt: the router sets them as it decides, and
// the core renders them with the answer (or, on a stream opened early, as trailers).
export const MODEL_HEADER = 'x-gateway-model'
export const PROMPT_TOKENS_HEADER = 'x-gateway-prompt-tokens'

/** A model as x-gateway-model gives it, e.g. `local/gpt-4o-mini`. */
export function modelHeaderOf(model: { readonly provider: string; readonly model: string }): string {
  return `${model.provider}/${model.model}`
}
