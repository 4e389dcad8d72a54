// The body of OpenAI's legacy POST /v1/completions: one prompt, answered by the chosen model as
// a single user message, so any model of the table serves it. The sampling fields are the chat
// route's own; the fields that ask for more than one text answer (several prompts or choices,
// echo, logprobs, a suffix) get a 400 that names them.
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type AiRequest } from '../../ai-request.ts'
import type { ParsedAiBody } from '../../dialect.ts'
import { validate } from '../../../http/validate.ts'
import { governorMetadataOf, ignoredFieldsHeader, modelChoiceOf, modelOrTierSchema } from '../shared.ts'
import { chatCompletionsRequestSchema } from './request.ts'

const chat = chatCompletionsRequestSchema.shape

const fields = {
  model: modelOrTierSchema,
  prompt: z.union([z.string(), z.array(z.string())], { error: 'prompt must be a string or an array of one string' }),
  max_tokens: chat.max_tokens,
  temperature: chat.temperature,
  top_p: chat.top_p,
  stop: chat.stop,
  seed: chat.seed,
  n: chat.n,
  best_of: z.literal(1, { error: 'best_of must be 1: the gateway answers with one choice' }).nullish(),
  echo: z.literal(false, { error: 'echo is not supported: the answer holds the completion alone' }).nullish(),
  logprobs: z.null({ error: 'logprobs are not supported' }).optional(),
  suffix: z.null({ error: 'suffix is not supported' }).optional(),
  user: chat.user,
  stream: chat.stream,
  stream_options: chat.stream_options,
  governorMetadata: governorMetadataSchema.optional(),
}

export const completionsRequestSchema = z.object(fields).superRefine((body, ctx) => {
  if (Array.isArray(body.prompt) && body.prompt.length !== 1) {
    ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'prompt may hold one prompt: the gateway answers one prompt per request' })
  }
})

export type CompletionsRequest = z.output<typeof completionsRequestSchema>

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(fields))

function toCompletionRequest(body: CompletionsRequest, headers: IncomingHttpHeaders): AiRequest {
  const prompt = typeof body.prompt === 'string' ? body.prompt : body.prompt[0]!
  const stop = body.stop ?? undefined
  return {
    ...modelChoiceOf(body.model),
    messages: [{ role: 'user', content: prompt }],
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_tokens ?? undefined,
    mode: 'text',
    governorMetadata: governorMetadataOf(body.governorMetadata, headers),
    stream: body.stream === true,
    topP: body.top_p ?? undefined,
    stop: stop === undefined ? undefined : typeof stop === 'string' ? [stop] : stop,
    seed: body.seed ?? undefined,
    user: body.user ?? undefined,
  }
}

export function parseCompletions(raw: unknown, headers: IncomingHttpHeaders): ParsedAiBody {
  const body = validate(completionsRequestSchema, raw)
  return { request: toCompletionRequest(body, headers), body, headers: ignoredFieldsHeader(raw, KNOWN_FIELDS) }
}
