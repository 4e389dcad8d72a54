// How a model's answer is written for one kind of client: the spec's own endpoints, or a client
// dialect. The core runs the call and the hooks; a format only turns results and stream events
// into bytes, so every route shares one flow.
import type { CompletionResult, ToolCallDelta } from './completion.ts'
import type { RequestContext } from './context.ts'
import type { GatewayError } from './errors.ts'
import type { ModelName } from './models.ts'

/** What a stream's first frames can say: the model that answers and the prompt's size. */
export interface StreamStart {
  readonly model: ModelName
  readonly promptTokens: number
}

/** The frames of one streamed answer, in order. Stateful: made per request. Each returns '' when it has nothing to send. */
export interface StreamFrames {
  /** Right after the headers. */
  open(): string
  text(text: string): string
  toolCall(delta: ToolCallDelta): string
  /** After the last piece, once the whole answer is known and the onAnswer hooks have run. */
  close(result: CompletionResult): string
  /** A failure after the stream began, when the status can no longer say it. */
  error(error: GatewayError): string
}

export interface AnswerFormat {
  /** The JSON body of a complete answer that is not streamed. */
  json(ctx: RequestContext, result: CompletionResult): unknown
  stream(ctx: RequestContext, start: StreamStart): StreamFrames
}
