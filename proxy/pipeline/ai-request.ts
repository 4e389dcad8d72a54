// The gateway's AI request, and the bodies of /api/ai/chat and /api/ai/complete as the spec's
// field tables define them. Parsed once by the core before any plugin runs (client dialects map
// their own bodies to the same type); plugins read the typed result.
import { z } from 'zod'
import { modelNameSchema } from './catalog.ts'
import type { ModelName, Quality } from './models.ts'
import { oneOf } from '../http/validate.ts'

export const MAX_MESSAGES = 1000
export const MAX_TOKENS_CEILING = 32_768
/**
 * The spec's default temperature on its own endpoints: sent when the client sent none, except to a
 * reasoning model, which takes none (see plugins/router/logic/sampling.ts).
 */
export const SPEC_TEMPERATURE = 0.7

export const ACTION_TYPES = [
  'customer_support',
  'other',
  'legal_advice',
  'medical_advice',
  'hr_message',
  'policy_warning',
  'suspension',
  'refund_denial',
] as const

const shortText = z.string().max(256)

export const messageSchema = z.strictObject({
  role: oneOf('role', ['user', 'assistant', 'system']),
  content: z.string({ error: 'content must be a string' }),
})

export const governorMetadataSchema = z.strictObject({
  actionType: oneOf('actionType', ACTION_TYPES),
  senderId: shortText.min(1, 'senderId must not be empty'),
  recipientCountry: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'recipientCountry must be a two-letter country code')
    .optional(),
  recipientUserId: shortText.optional(),
  recipientEmail: shortText.optional(),
  senderRole: shortText.optional(),
  department: shortText.optional(),
})

const baseFields = {
  messages: z
    .array(messageSchema, { error: 'messages must be an array of {role, content}' })
    .min(1, 'messages must hold at least one message')
    .max(MAX_MESSAGES, `messages may hold at most ${MAX_MESSAGES} messages`),
  quality: oneOf('quality', ['cheap', 'balanced', 'frontier']).default('balanced'),
  temperature: z
    .number({ error: 'temperature must be a number' })
    .min(0, 'temperature must be between 0 and 2')
    .max(2, 'temperature must be between 0 and 2')
    .optional()
    .meta({ description: `Default ${SPEC_TEMPERATURE}; a reasoning model is sent none unless the request gives one.` }),
  model: modelNameSchema(false).optional(),
  maxTokens: z
    .number({ error: 'maxTokens must be a number' })
    .int('maxTokens must be a whole number')
    .min(1, 'maxTokens must be at least 1')
    .max(MAX_TOKENS_CEILING, `maxTokens must be at most ${MAX_TOKENS_CEILING}`)
    .default(1000),
  governorMetadata: governorMetadataSchema.optional(),
}

export const chatRequestSchema = z.strictObject({
  ...baseFields,
  mode: z.literal('text', { error: 'mode is only available on /api/ai/complete' }).default('text'),
})

export const completeRequestSchema = z.strictObject({
  ...baseFields,
  mode: z.enum(['text', 'json'], { error: 'mode must be text or json' }).default('text'),
})

export type GovernorMetadata = z.infer<typeof governorMetadataSchema>
export type ActionType = (typeof ACTION_TYPES)[number]

export type Role = 'system' | 'user' | 'assistant' | 'tool'

interface TextPart {
  readonly type: 'text'
  readonly text: string
}

interface ImagePart {
  readonly type: 'image'
  /** An http(s) URL or a `data:` URL with base64 content. */
  readonly url: string
  readonly detail?: 'auto' | 'low' | 'high' | undefined
}

export type ContentPart = TextPart | ImagePart

/** A tool the model called: `arguments` is the JSON text of the call's input. */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface Message {
  readonly role: Role
  /** The message's text: what is counted, trimmed, scanned and cached. */
  readonly content: string
  /** The text and images in their order; present only when the message carries an image. */
  readonly parts?: readonly ContentPart[] | undefined
  /** On an assistant message: the tools the model called. */
  readonly toolCalls?: readonly ToolCall[] | undefined
  /** On a tool message: the call whose result it carries. */
  readonly toolCallId?: string | undefined
}

export interface ToolDefinition {
  readonly name: string
  readonly description?: string | undefined
  /** A JSON Schema object describing the tool's input. */
  readonly parameters: Readonly<Record<string, unknown>>
}

/** `required`: some tool must be called; `{name}`: that tool must be called. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string }

interface JsonSchemaFormat {
  readonly name: string
  readonly schema: Readonly<Record<string, unknown>>
  readonly strict?: boolean | undefined
}

/**
 * What a request may ask of the model beyond the spec's fields. The spec's endpoints set none of
 * them; the client dialects do, and every provider adapter honours what its API can express.
 */
export interface GenerationOptions {
  readonly tools?: readonly ToolDefinition[] | undefined
  readonly toolChoice?: ToolChoice | undefined
  readonly topP?: number | undefined
  readonly stop?: readonly string[] | undefined
  readonly seed?: number | undefined
  /** With mode json: the schema the answer must follow. */
  readonly jsonSchema?: JsonSchemaFormat | undefined
  /** The client's end-user id, passed to providers that take one; never part of the cache key. */
  readonly user?: string | undefined
}

/** Text to turn into vectors (OpenAI's embeddings): each input is a text or the provider's token ids. */
export interface EmbeddingOptions {
  readonly inputs: readonly (string | readonly number[])[]
  /** Shorter vectors than the model's own, for a model that can give them. */
  readonly dimensions?: number | undefined
}

export interface AiRequest extends GenerationOptions {
  readonly messages: readonly Message[]
  readonly quality: Quality
  /** As the client sent it; absent, the spec's endpoints send SPEC_TEMPERATURE and the dialects none. */
  readonly temperature?: number | undefined
  readonly model?: ModelName | undefined
  /** As the client sent it (the spec's endpoints default it to 1000); absent, none is sent upstream. */
  readonly maxTokens?: number | undefined
  readonly mode: 'text' | 'json'
  readonly governorMetadata?: GovernorMetadata | undefined
  /** From the x-gateway-tags header (request-tags.ts), for spend by tag; never part of the cache key. */
  readonly tags?: readonly string[] | undefined
  /** Set by a dialect whose body chooses SSE; the spec's endpoints stream by route. */
  readonly stream?: boolean | undefined
  /**
   * Present on an embeddings request: the answer is vectors, not text. Its text inputs are also
   * the request's user messages, so what reads a prompt (the Governor, the cache) reads them.
   */
  readonly embedding?: EmbeddingOptions | undefined
}

/** One text of a request: a message's text, or a tool call's arguments (JSON text). */
interface RequestText {
  readonly kind: 'text' | 'arguments'
  readonly text: string
}

/** The texts of a request, in order: every message's text, then its tool calls' arguments. */
export function requestTexts(request: AiRequest): RequestText[] {
  const texts: RequestText[] = []
  for (const message of request.messages) {
    texts.push({ kind: 'text', text: message.content })
    if (message.toolCalls !== undefined) for (const call of message.toolCalls) texts.push({ kind: 'arguments', text: call.arguments })
  }
  return texts
}
