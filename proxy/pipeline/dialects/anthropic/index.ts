// The Anthropic dialect: POST /v1/messages on the gateway's chain. A Claude model goes to
// Anthropic; any other model of the catalog is translated like any other request.
import type { ClientDialect } from '../../dialect.ts'
import type { Route } from '../../../http/routes.ts'
import { messageAnswerSchema } from './answers.ts'
import { anthropicFormat } from './format.ts'
import { messagesRequestSchema, parseMessages } from './request.ts'

const anthropicDialect: ClientDialect = {
  name: 'anthropic',
  schema: messagesRequestSchema,
  parse: parseMessages,
  format: anthropicFormat,
  sse: "Server-Sent Events: Anthropic's typed events, from `message_start` to `message_stop`.",
}

export const anthropicRoutes: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/messages',
    name: 'anthropic_messages',
    kind: 'ai',
    keyTypes: ['sk'],
    stream: false,
    dialect: anthropicDialect,
    docs: { response: messageAnswerSchema },
  },
]
