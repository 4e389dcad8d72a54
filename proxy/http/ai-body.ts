// The body of /api/ai/chat and /api/ai/complete. A hand-written check takes the bodies clients
// send most (no governorMetadata) in a single pass; zod's parse of the same body costs several
// times as much. Whatever the check does not take goes to the zod schemas, which accept every
// body the check does, with the same result, and word the 400 for the bodies they refuse.
import { chatRequestSchema, completeRequestSchema, MAX_MESSAGES, MAX_TOKENS_CEILING, type AiRequest, type Message } from '../pipeline/ai-request.ts'
import { modelCatalog } from '../pipeline/catalog.ts'
import type { Quality } from '../pipeline/models.ts'
import { validate } from './validate.ts'

const KNOWN_KEYS = new Set(['messages', 'quality', 'temperature', 'model', 'maxTokens', 'mode'])

/** `stream`: the chat route, whose mode is only ever text. */
export function parseAiBody(value: unknown, stream: boolean): AiRequest {
  return checked(value, stream) ?? validate(stream ? chatRequestSchema : completeRequestSchema, value)
}

function isRole(role: unknown): role is Message['role'] {
  return role === 'user' || role === 'assistant' || role === 'system'
}

function isQuality(quality: unknown): quality is Quality {
  return quality === 'balanced' || quality === 'cheap' || quality === 'frontier'
}

/** The parsed request, in the shape and key order zod gives it; undefined for zod to decide. */
function checked(value: unknown, stream: boolean): AiRequest | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const body = value as Record<string, unknown>
  for (const key in body) if (!KNOWN_KEYS.has(key)) return undefined
  const given = body.messages
  if (!Array.isArray(given) || given.length < 1 || given.length > MAX_MESSAGES) return undefined
  const messages: Message[] = new Array(given.length)
  for (let i = 0; i < given.length; i++) {
    const message = given[i] as Record<string, unknown> | null
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined
    let keys = 0
    for (const _ in message) keys++
    const { role, content } = message
    if (keys !== 2 || !isRole(role) || typeof content !== 'string') return undefined
    messages[i] = { role, content }
  }
  // A default stands in for an absent field only: zod refuses a null, so the check must not take it.
  const quality = body.quality === undefined ? 'balanced' : body.quality
  if (!isQuality(quality)) return undefined
  // Absent stays absent: the spec's default (SPEC_TEMPERATURE) is not for every model.
  const temperature = body.temperature
  if (temperature !== undefined && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) return undefined
  const model = body.model
  if (model !== undefined && (typeof model !== 'string' || !modelCatalog().has(model))) return undefined
  const maxTokens = body.maxTokens === undefined ? 1000 : body.maxTokens
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_TOKENS_CEILING) return undefined
  const mode = body.mode === undefined ? 'text' : body.mode
  if (mode !== 'text' && (stream || mode !== 'json')) return undefined
  // In zod's key order, which the cache key follows.
  return { messages, quality, ...(temperature !== undefined && { temperature }), ...(model !== undefined && { model }), maxTokens, mode }
}
