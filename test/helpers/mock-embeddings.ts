// The mock upstream's answer to POST /v1/embeddings, as OpenAI gives it: one float vector per
// input (of `dimensions`, else 8 components, each its input's index plus a tenth of its position),
// and usage counting a token per word or token id.
export interface EmbeddingsWire {
  readonly model?: string
  readonly input?: unknown
  readonly dimensions?: number
}

function inputsOf(input: unknown): unknown[] {
  if (typeof input === 'string') return [input]
  if (Array.isArray(input) && input.every((item) => typeof item === 'number')) return [input]
  return Array.isArray(input) ? input : []
}

function tokensOf(input: unknown): number {
  return typeof input === 'string' ? input.split(/\s+/).filter(Boolean).length : Array.isArray(input) ? input.length : 0
}

export function embeddingsAnswer(wire: EmbeddingsWire): unknown {
  const inputs = inputsOf(wire.input)
  const length = wire.dimensions ?? 8
  const promptTokens = inputs.reduce<number>((sum, input) => sum + tokensOf(input), 0)
  return {
    object: 'list',
    // In reverse: the gateway must put them back in input order by their index.
    data: inputs
      .map((_, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from({ length }, (_v, i) => index + i / 10),
      }))
      .reverse(),
    model: wire.model ?? '',
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  }
}
