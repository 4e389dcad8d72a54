// Answers in OpenAI's Chat Completions shape: a `chat.completion` object, or `chat.completion.chunk`
// SSE lines ending in `data: [DONE]`, with a usage chunk when stream_options.include_usage asks.
import type { AnswerFormat, StreamFrames, StreamStart } from '../../answer-format.ts'
import type { CompletionResult, ToolCallDelta } from '../../completion.ts'
import type { RequestContext } from '../../context.ts'
import { sseFrame } from '../../../http/sse.ts'
import { openAiErrorBody } from './errors.ts'
import type { ChatCompletionsRequest } from './request.ts'

const DONE = 'data: [DONE]\n\n'
const TEXT_SUFFIX = '},"logprobs":null,"finish_reason":null}]}\n\n'

function usageOf(result: CompletionResult) {
  const { promptTokens, completionTokens, totalTokens } = result.usage
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens }
}

function identity(ctx: RequestContext) {
  return { id: `chatcmpl-${ctx.id}`, created: Math.floor(ctx.receivedAt / 1000) }
}

function completionOf(ctx: RequestContext, result: CompletionResult) {
  const calls = result.toolCalls
  return {
    ...identity(ctx),
    object: 'chat.completion',
    model: result.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // OpenAI sends null, not '', when the model only called tools.
          content: result.text === '' && calls !== undefined ? null : result.text,
          refusal: null,
          ...(calls !== undefined && {
            tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
          }),
        },
        logprobs: null,
        finish_reason: result.finishReason ?? 'stop',
      },
    ],
    usage: usageOf(result),
    system_fingerprint: null,
  }
}

function toolCallDelta(delta: ToolCallDelta) {
  const fn: { name?: string; arguments: string } = { arguments: delta.arguments }
  if (delta.name !== undefined) fn.name = delta.name
  return delta.id === undefined ? { index: delta.index, function: fn } : { index: delta.index, id: delta.id, type: 'function', function: fn }
}

function streamFrames(ctx: RequestContext, start: StreamStart): StreamFrames {
  const body = ctx.body as ChatCompletionsRequest | undefined
  const includeUsage = body?.stream_options?.include_usage === true
  // With include_usage every chunk carries `usage: null` but the last, as OpenAI sends them.
  const base = { ...identity(ctx), object: 'chat.completion.chunk', model: start.model, system_fingerprint: null, ...(includeUsage && { usage: null }) }
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })
  // A text chunk is the stream's one frame per piece: its bytes around the text are made once, the
  // same as chunk({ content: text }) gives.
  const textPrefix = `data: ${JSON.stringify(base).slice(0, -1)},"choices":[{"index":0,"delta":{"content":`
  return {
    open: () => chunk({ role: 'assistant', content: '', refusal: null }),
    text: (text) => (text === '' ? '' : `${textPrefix}${JSON.stringify(text)}${TEXT_SUFFIX}`),
    toolCall: (delta) => chunk({ tool_calls: [toolCallDelta(delta)] }),
    close(result) {
      const last = chunk({}, result.finishReason ?? 'stop')
      return includeUsage ? last + sseFrame({ ...base, choices: [], usage: usageOf(result) }) + DONE : last + DONE
    },
    // The SDKs raise an APIError for a chunk that carries `error`.
    error: (error) => sseFrame(openAiErrorBody(error)),
  }
}

export const openAiFormat: AnswerFormat = {
  json: completionOf,
  stream: streamFrames,
}
