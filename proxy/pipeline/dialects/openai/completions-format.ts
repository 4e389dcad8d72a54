// Answers in the shape of OpenAI's legacy Completions: a `text_completion` object, or SSE lines of
// `text_completion` chunks ending in `data: [DONE]`, with a usage chunk when
// stream_options.include_usage asks.
import { z } from 'zod'
import type { AnswerFormat, StreamFrames, StreamStart } from '../../answer-format.ts'
import type { CompletionResult } from '../../completion.ts'
import type { RequestContext } from '../../context.ts'
import { sseFrame } from '../../../http/sse.ts'
import type { CompletionsRequest } from './completions-request.ts'
import { openAiErrorBody } from './errors.ts'

const DONE = 'data: [DONE]\n\n'

export const textCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('text_completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      text: z.string(),
      index: z.number().int(),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'length', 'content_filter']),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
})

function usageOf(result: CompletionResult) {
  const { promptTokens, completionTokens, totalTokens } = result.usage
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens }
}

function identity(ctx: RequestContext) {
  return { id: `cmpl-${ctx.id}`, object: 'text_completion', created: Math.floor(ctx.receivedAt / 1000) }
}

/** No tools on this route: a model's tool call cannot happen, and any other end reads as stop. */
function finishReasonOf(result: CompletionResult): 'stop' | 'length' | 'content_filter' {
  const reason = result.finishReason
  return reason === 'length' || reason === 'content_filter' ? reason : 'stop'
}

function textCompletion(ctx: RequestContext, result: CompletionResult) {
  return {
    ...identity(ctx),
    model: result.model,
    choices: [{ text: result.text, index: 0, logprobs: null, finish_reason: finishReasonOf(result) }],
    usage: usageOf(result),
  }
}

function streamFrames(ctx: RequestContext, start: StreamStart): StreamFrames {
  const includeUsage = (ctx.body as CompletionsRequest | undefined)?.stream_options?.include_usage === true
  const base = { ...identity(ctx), model: start.model, ...(includeUsage && { usage: null }) }
  const chunk = (text: string, finishReason: string | null = null) =>
    sseFrame({ ...base, choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }] })
  return {
    open: () => '',
    text: (text) => (text === '' ? '' : chunk(text)),
    toolCall: () => '',
    close(result) {
      const last = chunk('', finishReasonOf(result))
      return includeUsage ? last + sseFrame({ ...base, choices: [], usage: usageOf(result) }) + DONE : last + DONE
    },
    error: (error) => sseFrame(openAiErrorBody(error)),
  }
}

export const completionsFormat: AnswerFormat = {
  json: textCompletion,
  stream: streamFrames,
}
