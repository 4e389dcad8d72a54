// The bodies of /api/ai/chat and /api/ai/complete, as the spec's field tables define them.
// Parsed once by the core before any plugin runs; plugins read the typed result.
import { z } from 'zod'
import { MODEL_NAMES } from './models.ts'

const MAX_MESSAGES = 1000
const MAX_TOKENS_CEILING = 32_768

export const ACTION_TYPES = [
  'customer_support', 'other', 'legal_advice', 'medical_advice',
  'hr_message', 'policy_warning', 'suspension', 'refund_denial',
] as const

const shortText = z.string().max(256)

export const messageSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'system'], { error: 'role must be one of user, assistant, system' }),
  content: z.string({ error: 'content must be a string' }),
})

export const governorMetadataSchema = z.strictObject({
  actionType: z.enum(ACTION_TYPES, { error: `actionType must be one of ${ACTION_TYPES.join(', ')}` }),
  senderId: shortText.min(1, 'senderId must not be empty'),
  recipientCountry: z.string().regex(/^[A-Za-z]{2}$/, 'recipientCountry must be a two-letter country code').optional(),
  recipientUserId: shortText.optional(),
  recipientEmail: shortText.optional(),
  senderRole: shortText.optional(),
  department: shortText.optional(),
})

const baseFields = {
  messages: z.array(messageSchema, { error: 'messages must be an array of {role, content}' })
    .min(1, 'messages must hold at least one message')
    .max(MAX_MESSAGES, `messages may hold at most ${MAX_MESSAGES} messages`),
  quality: z.enum(['cheap', 'balanced', 'frontier'], { error: 'quality must be one of cheap, balanced, frontier' }).default('balanced'),
  temperature: z.number({ error: 'temperature must be a number' })
    .min(0, 'temperature must be between 0 and 2').max(2, 'temperature must be between 0 and 2').default(0.7),
  model: z.enum(MODEL_NAMES, { error: `model must be one of ${MODEL_NAMES.join(', ')}` }).optional(),
  maxTokens: z.number({ error: 'maxTokens must be a number' })
    .int('maxTokens must be a whole number')
    .min(1, 'maxTokens must be at least 1')
    .max(MAX_TOKENS_CEILING, `maxTokens must be at most ${MAX_TOKENS_CEILING}`).default(1000),
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

export type Message = z.infer<typeof messageSchema>
export type GovernorMetadata = z.infer<typeof governorMetadataSchema>
export type AiRequest = z.infer<typeof completeRequestSchema>
export type ActionType = (typeof ACTION_TYPES)[number]
