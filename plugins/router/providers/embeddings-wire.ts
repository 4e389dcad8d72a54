// OpenAI's embeddings wire format, which Mistral speaks too: POST /v1/embeddings with the inputs,
// answered with one vector per input and the prompt's usage. Vectors are asked as floats: every
// OpenAI-compatible server gives them, and the client's own encoding is the gateway's to write.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ProviderResult } from '../../../proxy/pipeline/completion.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { Upstream } from '../../../proxy/pipeline/upstream.ts'
import { upstreamIdOf, type EmbeddingRequest } from './adapter.ts'
import { endpointOf, postJson, type Endpoint } from './endpoint.ts'
import { parseAnswer } from './provider-error.ts'

interface WireEmbeddings {
  readonly data?: readonly { readonly index?: unknown; readonly embedding?: unknown }[]
  readonly usage?: { readonly prompt_tokens?: unknown } | null
}

interface EmbeddingsOptions {
  readonly label: 'openai' | 'mistral'
  readonly baseUrl: string
  readonly apiKey: string
  /** The model table in force: what the provider knows each model by. */
  readonly catalog: ModelCatalog
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'number' && Number.isFinite(n))
}

/** The vectors in input order, or an UpstreamError for an answer that does not hold one per input. */
function vectorsOf(label: string, answer: WireEmbeddings, inputs: number): number[][] {
  const vectors = new Array<number[] | undefined>(inputs)
  for (const item of Array.isArray(answer.data) ? answer.data : []) {
    const index = item.index
    if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < inputs && isVector(item.embedding)) vectors[index] = item.embedding
  }
  if (vectors.some((vector) => vector === undefined)) throw new UpstreamError(`${label} sent embeddings that do not match the inputs.`, false)
  return vectors as number[][]
}

export function createEmbeddings(upstream: Upstream, options: EmbeddingsOptions): (request: EmbeddingRequest, signal: AbortSignal) => Promise<ProviderResult> {
  const { label, apiKey } = options
  const endpoint: Endpoint = endpointOf(label, options.baseUrl, '/v1/embeddings', apiKey, { authorization: `Bearer ${apiKey}` })
  return async (request, signal) => {
    const body = JSON.stringify({
      model: upstreamIdOf(request.model, options.catalog),
      input: request.inputs,
      dimensions: request.dimensions,
      encoding_format: 'float',
      user: label === 'mistral' ? undefined : request.user,
    })
    const response = await postJson(upstream, endpoint, body, signal, request.traceHeaders)
    const answer = parseAnswer(label, await response.text()) as WireEmbeddings
    const embeddings = vectorsOf(label, answer, request.inputs.length)
    const promptTokens = answer.usage?.prompt_tokens
    return {
      text: '',
      embeddings,
      ...(typeof promptTokens === 'number' && promptTokens >= 0 && { usage: { promptTokens, completionTokens: 0 } }),
    }
  }
}
