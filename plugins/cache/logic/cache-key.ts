// The cache key's canonical encoding: every request field that changes the model's answer, in a
// fixed order (workers/hash-cache-key.ts hashes it into the key). Pure: it never sees the request
// context.
import type { EmbeddingOptions, GenerationOptions, Message } from '../../../proxy/pipeline/ai-request.ts'

export interface CacheKeyFields {
  readonly projectId: string
  /** The provider and model the request resolved to. */
  readonly provider: string
  readonly model: string
  /** The messages sent upstream, after context-window trimming. */
  readonly messages: readonly Message[]
  /** Null when the request left it to the provider. */
  readonly temperature: number | null
  readonly maxTokens: number | null
  readonly mode: string
  /** The project's Governor settings version when the request is governed; null when it is not. */
  readonly governorVersion: number | null
  /** Tools, sampling and output options; `user` is left out, as it does not change the answer. */
  readonly options?: GenerationOptions | undefined
  /** An embeddings request's inputs (token ids included) and vector length. */
  readonly embedding?: EmbeddingOptions | undefined
}

// Part of every encoding, so a change of the encoding can never match entries written by the old one.
const ENCODING = 'tollgate-cache-key/1'

/** A message as [role, content], with its images, tool calls or tool call id appended when it has any. */
function encodeMessage(message: Message): readonly unknown[] {
  const { parts, toolCalls, toolCallId } = message
  if (parts === undefined && toolCalls === undefined && toolCallId === undefined) return [message.role, message.content]
  return [message.role, message.content, parts ?? null, toolCalls ?? null, toolCallId ?? null]
}

/** The options that change an answer, or undefined when the request sets none of them. */
function encodeOptions(options: GenerationOptions | undefined): readonly unknown[] | undefined {
  if (options === undefined) return undefined
  const { tools, toolChoice, topP, stop, seed, jsonSchema } = options
  if (tools === undefined && toolChoice === undefined && topP === undefined && stop === undefined && seed === undefined && jsonSchema === undefined) {
    return undefined
  }
  return [tools ?? null, toolChoice ?? null, topP ?? null, stop ?? null, seed ?? null, jsonSchema ?? null]
}

/**
 * One JSON array with the fields in a fixed order and each message as [role, content]: JSON
 * string escaping keeps every field's bounds explicit, so no two different requests share an
 * encoding (moving text between messages or fields changes it). Requests with options or
 * messages beyond role and content get longer arrays, so they never meet a plain request's key.
 */
export function encodeCacheKey(fields: CacheKeyFields): string {
  const messages = new Array<readonly unknown[]>(fields.messages.length)
  for (let i = 0; i < messages.length; i++) messages[i] = encodeMessage(fields.messages[i] as Message)
  const encoded: unknown[] = [
    ENCODING,
    fields.projectId,
    fields.provider,
    fields.model,
    messages,
    fields.temperature,
    fields.maxTokens,
    fields.mode,
    fields.governorVersion,
  ]
  const options = encodeOptions(fields.options)
  if (options !== undefined) encoded.push(options)
  const embedding = fields.embedding
  // Tagged, so no chat request's options can take its place.
  if (embedding !== undefined) encoded.push(['embedding', embedding.inputs, embedding.dimensions ?? null])
  return JSON.stringify(encoded)
}
