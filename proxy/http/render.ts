// Writes a Reply known whole (JSON, text, bytes, an error) as the HTTP answer, with the headers
// the plugins collected: one way for a plugin's or a route's reply, and for a reply an onAnswer
// hook sends in the place of a model's answer.
import type { ServerResponse } from 'node:http'
import type { Outcome, RequestContext } from '../pipeline/context.ts'
import { errorShapeFor } from '../pipeline/dialects/error-shapes.ts'
import { type GatewayError, UpstreamError, UpstreamTimeoutError } from '../pipeline/errors.ts'
import type { WholeReply } from './reply.ts'
import { sendBytes, sendError, sendJson, sendText } from './respond.ts'

/** How a request was answered, for the metrics, the access log and the plugins' onComplete. */
export interface Finish {
  readonly status: number
  readonly reason: Outcome
  /** The error's code, when the request ended in one. */
  readonly errorCode?: string
}

/** `success` names a 2xx/3xx answer: 'ok' from a route's handler, 'short_circuit' from a plugin. */
export function render(ctx: RequestContext, res: ServerResponse, reply: WholeReply, success: Outcome = 'short_circuit'): Finish {
  switch (reply.kind) {
    case 'json':
      sendJson(res, reply.status, reply.body, { 'x-request-id': ctx.requestId, ...ctx.responseHeaders, ...reply.headers })
      return { status: reply.status, reason: reply.status < 400 ? success : 'client_error' }
    case 'text':
      sendText(res, reply.status, reply.body, reply.contentType, { 'x-request-id': ctx.requestId, ...ctx.responseHeaders })
      return { status: reply.status, reason: success }
    case 'bytes':
      sendBytes(res, reply.status, reply.body, { 'x-request-id': ctx.requestId, ...ctx.responseHeaders, ...reply.headers })
      return { status: reply.status, reason: success }
    case 'error':
      sendError(res, reply.error, { 'x-request-id': ctx.requestId, ...ctx.responseHeaders }, errorShapeFor(ctx.path))
      return { status: reply.error.status, reason: outcomeOf(reply.error), errorCode: reply.error.code }
  }
}

export function outcomeOf(error: GatewayError): Outcome {
  // A provider's refusal keeps its status for the client, and stays an upstream error for the ledger.
  if (error instanceof UpstreamError || error instanceof UpstreamTimeoutError) return 'upstream_error'
  if (error.status === 429) return 'rate_limited'
  if (error.status === 402) return 'budget_exceeded'
  if (error.status === 502 || error.status === 504) return 'upstream_error'
  return error.status >= 500 ? 'internal_error' : 'client_error'
}
