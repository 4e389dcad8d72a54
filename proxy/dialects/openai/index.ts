// The OpenAI dialect: POST /v1/chat/completions on the gateway's chain.
import type { ClientDialect } from '../../dialect.ts'
import type { Route } from '../../routes.ts'
import { chatCompletionSchema } from './answers.ts'
import { openAiFormat } from './format.ts'
import { chatCompletionsRequestSchema, parseChatCompletions } from './request.ts'

export const openAiDialect: ClientDialect = {
  name: 'openai',
  schema: chatCompletionsRequestSchema,
  parse: parseChatCompletions,
  format: openAiFormat,
}

export const openAiRoutes: readonly Route[] = [
  {
    method: 'POST', path: '/v1/chat/completions', name: 'openai_chat_completions', kind: 'ai', keyTypes: ['sk'], stream: false,
    dialect: openAiDialect, docs: { response: chatCompletionSchema },
  },
]
