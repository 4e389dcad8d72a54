// The account routes' answers, as /openapi.json describes them (the spec's Account records and
// the management routes' records).
import { z } from 'zod'
import { PLANS } from '../../../proxy/pipeline/project.ts'
import { ROLES } from '../logic/roles.ts'

const instant = z.iso.datetime()

export const messageAnswer = z.object({ success: z.literal(true), message: z.string() })

const tokenAnswerSchema = z.object({
  access_token: z.string().describe('A JWT for Authorization: Bearer.'),
  refresh_token: z.string(),
  expires_in: z.number().int().describe('Seconds the access token is valid.'),
  token_type: z.literal('bearer'),
})

const signedInUser = z.object({ id: z.string(), email: z.string(), organization_id: z.string() })

const REFRESH_COOKIE_NOTE = 'Absent with X-Refresh-Cookie: 1, which sets it as an HttpOnly cookie for /api/auth/refresh instead.'

export const loginAnswerSchema = tokenAnswerSchema.extend({
  refresh_token: z.string().optional().describe(REFRESH_COOKIE_NOTE),
  user: signedInUser,
})

export const refreshAnswerSchema = tokenAnswerSchema.extend({
  refresh_token: z.string().optional().describe(REFRESH_COOKIE_NOTE),
  user: signedInUser.optional().describe('Only with X-Refresh-Cookie: 1.'),
})

export const signupAnswer = messageAnswer.extend({ user: z.object({ id: z.string(), email: z.string() }) })

export const organizationAnswer = z.object({ id: z.string(), name: z.string(), createdAt: instant, role: z.enum(ROLES) })

export const auditLogAnswer = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: instant,
      actor: z.object({ userId: z.string(), email: z.string() }),
      action: z.string(),
      target: z.object({ type: z.enum(['organization', 'member', 'invitation', 'project', 'key']), id: z.string() }),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
})

export const memberAnswer = z.object({ userId: z.string(), email: z.string().nullable(), role: z.enum(ROLES), joinedAt: instant })

export const invitationAnswer = z.object({
  success: z.literal(true),
  invitation: z.object({ email: z.string(), role: z.enum(['admin', 'member']), expiresAt: instant }),
})

export const projectAnswer = z.object({
  id: z.string(),
  organizationId: z.string().optional(),
  name: z.string(),
  plan: z.enum(PLANS),
  budgetDollars: z.number(),
  cacheTtlSeconds: z.number().int(),
  cacheEnabled: z.boolean(),
  cacheSampled: z
    .boolean()
    .optional()
    .describe('The cache also answers OpenAI and Anthropic requests sampled above temperature 0 without a seed; absent: false.'),
  governor: z.looseObject({
    enabled: z.boolean(),
    strictMode: z.boolean(),
    autoApproveThreshold: z.number(),
    customRules: z.array(z.unknown()),
    version: z.number().int(),
  }),
  createdAt: instant,
})

export const keyAnswer = z.object({
  id: z.string(),
  projectId: z.string(),
  type: z.enum(['sk', 'pk']),
  env: z.enum(['dev', 'stg', 'prod']).nullable(),
  name: z.string(),
  prefix: z.string().describe('First and last characters, for identification.'),
  status: z.enum(['active', 'inactive']),
  createdAt: instant,
  lastUsedAt: instant.nullable().optional(),
  budgetDollars: z.number().optional().describe("The key's own monthly budget, in dollars, checked beside its project's; absent when it has none."),
  rpm: z.number().int().optional().describe("The key's own requests per minute, checked beside its plan's; absent when it has none."),
})

export const createdKeyAnswer = keyAnswer.extend({ key: z.string().describe('The full key: shown this once only.') })

export const deletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) })

export const queryAnswer = z.object({
  answer: z.string(),
  model: z.string(),
  usage: z.object({ promptTokens: z.number().int(), completionTokens: z.number().int(), totalTokens: z.number().int() }),
})
