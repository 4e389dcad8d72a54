// The OpenAI dialect: POST /v1/chat/completions, /v1/responses, /v1/completions and /v1/embeddings
// on the gateway's chain.
import type { ClientDialect } from '../../dialect.ts'
import type { Route } from '../../../http/routes.ts'
import { chatCompletionSchema } from './answers.ts'
import { completionsFormat, textCompletionSchema } from './completions-format.ts'
import { completionsRequestSchema, parseCompletions } from './completions-request.ts'
import { responseObjectSchema, responsesFormat } from './responses-format.ts'
import { parseResponses, responsesRequestSchema } from './responses-request.ts'
import { embeddingListSchema, embeddingsFormat } from './embeddings-format.ts'
import { embeddingsRequestSchema, parseEmbeddings } from './embeddings-request.ts'
import { openAiFormat } from './format.ts'
import { chatCompletionsRequestSchema, parseChatCompletions } from './request.ts'

const openAiDialect: ClientDialect = {
  name: 'openai',
  schema: chatCompletionsRequestSchema,
  parse: parseChatCompletions,
  format: openAiFormat,
  sse: 'Server-Sent Events: `chat.completion.chunk` objects as OpenAI streams them, ending with `data: [DONE]`.',
}

const openAiResponsesDialect: ClientDialect = {
  name: 'openai',
  schema: responsesRequestSchema,
  parse: parseResponses,
  format: responsesFormat,
  sse: 'Server-Sent Events: the typed Responses events, from `response.created` to `response.completed` (or `response.incomplete`).',
}

const openAiCompletionsDialect: ClientDialect = {
  name: 'openai',
  schema: completionsRequestSchema,
  parse: parseCompletions,
  format: completionsFormat,
  sse: 'Server-Sent Events: `text_completion` objects as OpenAI streams them, ending with `data: [DONE]`.',
}

const openAiEmbeddingsDialect: ClientDialect = {
  name: 'openai',
  schema: embeddingsRequestSchema,
  parse: parseEmbeddings,
  format: embeddingsFormat,
}

export const openAiRoutes: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    name: 'openai_chat_completions',
    kind: 'ai',
    keyTypes: ['sk'],
    stream: false,
    dialect: openAiDialect,
    docs: { response: chatCompletionSchema },
  },
  {
    method: 'POST',
    path: '/v1/responses',
    name: 'openai_responses',
    kind: 'ai',
    keyTypes: ['sk'],
    stream: false,
    dialect: openAiResponsesDialect,
    docs: { response: responseObjectSchema },
  },
  {
    method: 'POST',
    path: '/v1/completions',
    name: 'openai_completions',
    kind: 'ai',
    keyTypes: ['sk'],
    stream: false,
    dialect: openAiCompletionsDialect,
    docs: { response: textCompletionSchema },
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    name: 'openai_embeddings',
    kind: 'ai',
    keyTypes: ['sk'],
    stream: false,
    dialect: openAiEmbeddingsDialect,
    docs: { response: embeddingListSchema },
  },
]
