// A RequestContext for unit tests of plugin hooks, without a server. Defaults to the AI complete
// route with a one-message body; every field can be overridden. Routes that are not AI routes get
// no AI body unless one is given.
import { pino } from 'pino'
import type { z } from 'zod'
import { completeRequestSchema } from '../../proxy/pipeline/ai-request.ts'
import type { RequestContext, RouteInfo } from '../../proxy/pipeline/context.ts'

export const COMPLETE_ROUTE: RouteInfo = { name: 'ai_complete', kind: 'ai', keyTypes: ['sk'], stream: false }
export const CHAT_ROUTE: RouteInfo = { name: 'ai_chat', kind: 'ai', keyTypes: ['sk'], stream: true }

const silentLog = pino({ level: 'silent' })

export type ContextOverrides = Partial<Omit<RequestContext, 'ai'>> & {
  /** The AI body as a client would send it; parsed with the complete schema, so defaults apply. */
  readonly ai?: z.input<typeof completeRequestSchema>
}

export function makeContext(overrides: ContextOverrides = {}): RequestContext {
  const { ai, ...rest } = overrides
  const route = rest.route ?? COMPLETE_ROUTE
  return {
    id: 'req_test',
    requestId: 'req_test',
    receivedAt: 0,
    method: 'POST',
    path: route.stream ? '/api/ai/chat' : '/api/ai/complete',
    route,
    params: {},
    query: new URLSearchParams(),
    headers: {},
    clientIp: '127.0.0.1',
    body: undefined,
    ai: ai === undefined && route.kind !== 'ai' ? undefined : completeRequestSchema.parse(ai ?? { messages: [{ role: 'user', content: 'Hello there.' }] }),
    signal: new AbortController().signal,
    log: silentLog,
    state: {},
    responseHeaders: {},
    trailerNames: [],
    doneFields: {},
    streamedText: '',
    ...rest,
  }
}
