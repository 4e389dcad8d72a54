// The contract of a client dialect: an AI route that speaks another API's request and answer
// formats (OpenAI's, Anthropic's) on top of the same chain. A dialect only translates at the
// edge; every plugin runs for its requests exactly as for the spec's own.
import type { IncomingHttpHeaders } from 'node:http'
import type { z } from 'zod'
import type { AiRequest } from './ai-request.ts'
import type { AnswerFormat } from './answer-format.ts'

export interface ParsedAiBody {
  readonly request: AiRequest
  /** The dialect's own validated body, kept as ctx.body for its answer format. */
  readonly body: unknown
  /** Answer headers the body alone decides (the fields it ignored). */
  readonly headers: Readonly<Record<string, string>>
}

export interface ClientDialect {
  readonly name: 'openai' | 'anthropic'
  /** The body's schema, for /openapi.json. */
  readonly schema: z.ZodType
  /** Validates a parsed JSON body and maps it to the gateway's request; throws InvalidRequestError. */
  parse(body: unknown, headers: IncomingHttpHeaders): ParsedAiBody
  readonly format: AnswerFormat
  /** What the route's stream holds, for /openapi.json; absent on a route that never streams. */
  readonly sse?: string
}
