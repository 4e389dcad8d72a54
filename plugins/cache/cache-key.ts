// The cache key: a canonical encoding of every request field that changes the model's answer,
// and its SHA-256. Pure: it never sees the request context.
import type { Message } from '../../proxy/ai-request.ts'
import { hashCacheKey } from '../../workers/hash-cache-key.ts'

export interface CacheKeyFields {
  readonly projectId: string
  /** The provider and model the request resolved to. */
  readonly provider: string
  readonly model: string
  /** The messages sent upstream, after context-window trimming. */
  readonly messages: readonly Message[]
  readonly temperature: number
  readonly maxTokens: number
  readonly mode: string
  /** The project's Governor settings version when the request is governed; null when it is not. */
  readonly governorVersion: number | null
}

// Part of every encoding, so a change of the encoding can never match entries written by the old one.
const ENCODING = 'tollgate-cache-key/1'

/**
 * One JSON array with the fields in a fixed order and each message as [role, content]: JSON
 * string escaping keeps every field's bounds explicit, so no two different requests share an
 * encoding (moving text between messages or fields changes it).
 */
export function encodeCacheKey(fields: CacheKeyFields): string {
  const messages = new Array<readonly [string, string]>(fields.messages.length)
  for (let i = 0; i < messages.length; i++) {
    const message = fields.messages[i] as Message
    messages[i] = [message.role, message.content]
  }
  return JSON.stringify([
    ENCODING, fields.projectId, fields.provider, fields.model, messages,
    fields.temperature, fields.maxTokens, fields.mode, fields.governorVersion,
  ])
}

export function cacheKeyOf(fields: CacheKeyFields): string {
  return hashCacheKey(encodeCacheKey(fields))
}
