// The spec's own answers: the Completion result as JSON on /api/ai/complete, and on /api/ai/chat
// the SSE events DESIGN.md fixes (`delta` per piece of text, then `done`, or `error`).
import type { AnswerFormat, StreamFrames } from './answer-format.ts'
import type { CompletionResult } from './completion.ts'
import type { RequestContext } from './context.ts'
import { creditsOf, roundDollars } from './credits.ts'
import { sseFrame } from '../http/sse.ts'

/** Only the spec's fields: tool calls and the finish reason exist for the dialects. */
function completionBody(result: CompletionResult) {
  return { text: result.text, provider: result.provider, model: result.model, cacheHit: result.cacheHit, usage: result.usage }
}

function doneEvent(ctx: RequestContext, result: CompletionResult) {
  const { charged, remaining } = creditsOf(ctx, result)
  return {
    provider: result.provider,
    model: result.model,
    cacheHit: result.cacheHit,
    usage: result.usage,
    creditsCharged: roundDollars(charged),
    creditsRemaining: remaining === undefined ? null : roundDollars(remaining),
    ...ctx.doneFields,
  }
}

export const nativeFormat: AnswerFormat = {
  json: (_ctx, result) => completionBody(result),
  stream(ctx): StreamFrames {
    return {
      open: () => '',
      // Per piece of text: a template, the same bytes as sseFrame({ text }, 'delta') without the object.
      text: (text) => `event: delta\ndata: {"text":${JSON.stringify(text)}}\n\n`,
      // The spec's endpoints take no tools, so no answer of theirs calls one.
      toolCall: () => '',
      close: (result) => sseFrame(doneEvent(ctx, result), 'done'),
      // The error's whole body: a Governor stop names its code, audit record and what it found.
      error: (error) => sseFrame(error.toBody(), 'error'),
    }
  },
}
