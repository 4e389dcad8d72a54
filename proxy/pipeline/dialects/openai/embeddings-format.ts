// Embeddings in OpenAI's shape: a list of `embedding` objects, each vector as numbers or, when the
// body asks for base64 (the official SDK does unless told otherwise), as the base64 of its
// little-endian 32-bit floats, which the SDK decodes.
import { z } from 'zod'
import type { AnswerFormat } from '../../answer-format.ts'
import type { CompletionResult } from '../../completion.ts'
import type { RequestContext } from '../../context.ts'
import { InternalError } from '../../errors.ts'
import type { EmbeddingsRequest } from './embeddings-request.ts'

export const embeddingListSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
})

function base64Of(vector: readonly number[]): string {
  const floats = Float32Array.from(vector)
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64')
}

function embeddingList(ctx: RequestContext, result: CompletionResult) {
  const isBase64 = (ctx.body as EmbeddingsRequest | undefined)?.encoding_format === 'base64'
  return {
    object: 'list',
    data: (result.embeddings ?? []).map((vector, index) => ({ object: 'embedding', index, embedding: isBase64 ? base64Of(vector) : vector })),
    model: result.model,
    usage: { prompt_tokens: result.usage.promptTokens, total_tokens: result.usage.promptTokens },
  }
}

export const embeddingsFormat: AnswerFormat = {
  json: embeddingList,
  stream() {
    throw new InternalError('Embeddings are never streamed.')
  },
}
