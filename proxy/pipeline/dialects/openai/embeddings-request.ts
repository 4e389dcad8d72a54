// The body of OpenAI's POST /v1/embeddings as the official SDKs send it: `input` as one text, an
// array of texts, one array of token ids or an array of them, mapped to an AiRequest whose text
// inputs are also its user messages (so the Governor and the budget read them as a prompt).
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type AiRequest, type Message } from '../../ai-request.ts'
import type { ParsedAiBody } from '../../dialect.ts'
import { validate } from '../../../http/validate.ts'
import { governorMetadataOf, ignoredFieldsHeader, modelChoiceOf, modelOrTierSchema } from '../shared.ts'

/** OpenAI's own limit on inputs per request. */
const MAX_INPUTS = 2048
/** Above every tokenizer's vocabulary. */
const MAX_TOKEN_ID = 2 ** 31 - 1
const MAX_DIMENSIONS = 65_536

const text = z.string({ error: 'an input must be a string' }).min(1, 'an input must not be empty')
const tokenIds = z
  .array(z.int({ error: 'a token id must be a whole number' }).min(0, 'a token id must not be negative').max(MAX_TOKEN_ID), {
    error: 'an input of tokens must be an array of token ids',
  })
  .min(1, 'an input of tokens must hold at least one token')
const inputs = (what: z.ZodType) => z.array(what).min(1, 'input must hold at least one input').max(MAX_INPUTS, `input may hold at most ${MAX_INPUTS} inputs`)

const fields = {
  model: modelOrTierSchema,
  input: z.union([text, tokenIds, inputs(text), inputs(tokenIds)], {
    error: 'input must be a string, an array of strings, an array of token ids or an array of such arrays',
  }),
  dimensions: z.int({ error: 'dimensions must be a whole number' }).min(1, 'dimensions must be at least 1').max(MAX_DIMENSIONS).nullish(),
  encoding_format: z.enum(['float', 'base64'], { error: 'encoding_format must be float or base64' }).nullish(),
  user: z.string().max(256, 'user must be at most 256 characters').nullish(),
  governorMetadata: governorMetadataSchema.optional(),
}

export const embeddingsRequestSchema = z.object(fields)

export type EmbeddingsRequest = z.output<typeof embeddingsRequestSchema>

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(fields))

/** The inputs as a list: one text or one array of token ids is a list of one. */
function inputsOf(input: EmbeddingsRequest['input']): (string | number[])[] {
  if (typeof input === 'string') return [input]
  if (input.every((item) => typeof item === 'number')) return [input as number[]]
  return input as (string | number[])[]
}

function toEmbeddingRequest(body: EmbeddingsRequest, headers: IncomingHttpHeaders): AiRequest {
  const given = inputsOf(body.input)
  const messages: Message[] = given.flatMap((input) => (typeof input === 'string' ? [{ role: 'user' as const, content: input }] : []))
  return {
    ...modelChoiceOf(body.model),
    messages,
    mode: 'text',
    stream: false,
    governorMetadata: governorMetadataOf(body.governorMetadata, headers),
    user: body.user ?? undefined,
    embedding: { inputs: given, dimensions: body.dimensions ?? undefined },
  }
}

export function parseEmbeddings(raw: unknown, headers: IncomingHttpHeaders): ParsedAiBody {
  const body = validate(embeddingsRequestSchema, raw)
  return { request: toEmbeddingRequest(body, headers), body, headers: ignoredFieldsHeader(raw, KNOWN_FIELDS) }
}
