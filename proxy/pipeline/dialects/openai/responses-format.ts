// Answers in the shape of OpenAI's Responses: a `response` object whose output holds the model's
// message and its function calls, or the typed SSE events the SDK's stream helper accumulates
// (response.created, output items and their parts, text and argument deltas, then
// response.completed, or response.incomplete when the answer was cut, with the full response).
import { z } from 'zod'
import type { AnswerFormat, StreamFrames, StreamStart } from '../../answer-format.ts'
import type { CompletionResult, ToolCallDelta } from '../../completion.ts'
import type { RequestContext } from '../../context.ts'
import type { GatewayError } from '../../errors.ts'
import { sseFrame } from '../../../http/sse.ts'
import type { ModelName } from '../../models.ts'
import { openAiErrorBody } from './errors.ts'
import type { ResponsesRequest } from './responses-request.ts'

export const responseObjectSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'incomplete', 'in_progress']),
  model: z.string(),
  output: z.array(
    z.union([
      z.object({
        type: z.literal('message'),
        id: z.string(),
        status: z.string(),
        role: z.literal('assistant'),
        content: z.array(z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()) })),
      }),
      z.object({ type: z.literal('function_call'), id: z.string(), call_id: z.string(), name: z.string(), arguments: z.string(), status: z.string() }),
    ]),
  ),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }).nullable(),
})

interface Ids {
  readonly response: string
  readonly message: string
  readonly createdAt: number
}

function idsOf(ctx: RequestContext): Ids {
  return { response: `resp_${ctx.id}`, message: `msg_${ctx.id}`, createdAt: Math.floor(ctx.receivedAt / 1000) }
}

const functionCallId = (callId: string) => `fc_${callId}`

function usageOf(result: CompletionResult) {
  const { promptTokens, completionTokens, totalTokens } = result.usage
  return {
    input_tokens: promptTokens,
    input_tokens_details: { cached_tokens: result.cachedInputTokens ?? 0 },
    output_tokens: completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: totalTokens,
  }
}

function incompleteReason(result: CompletionResult | undefined): string | undefined {
  if (result?.finishReason === 'length') return 'max_output_tokens'
  if (result?.finishReason === 'content_filter') return 'content_filter'
  return undefined
}

function messageItem(id: string, text: string, status: string) {
  return { type: 'message', id, status, role: 'assistant', content: text === '' && status === 'in_progress' ? [] : [outputText(text)] }
}

function outputText(text: string) {
  return { type: 'output_text', text, annotations: [] }
}

function functionCallItem(callId: string, name: string, args: string, status: string) {
  return { type: 'function_call', id: functionCallId(callId), call_id: callId, name, arguments: args, status }
}

/** The response object: in progress (no output yet) at a stream's start, else the whole answer. */
function responseOf(ctx: RequestContext, ids: Ids, model: ModelName, result: CompletionResult | undefined) {
  const body = ctx.body as ResponsesRequest | undefined
  const reason = incompleteReason(result)
  const calls = result?.toolCalls ?? []
  const output =
    result === undefined
      ? []
      : [
          // A model that only called tools says nothing.
          ...(result.text === '' && calls.length > 0 ? [] : [messageItem(ids.message, result.text, 'completed')]),
          ...calls.map((call) => functionCallItem(call.id, call.name, call.arguments, 'completed')),
        ]
  const format = body?.text?.format ?? { type: 'text' }
  return {
    id: ids.response,
    object: 'response',
    created_at: ids.createdAt,
    status: result === undefined ? 'in_progress' : reason === undefined ? 'completed' : 'incomplete',
    error: null,
    incomplete_details: reason === undefined ? null : { reason },
    instructions: body?.instructions ?? null,
    max_output_tokens: body?.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: body?.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: body?.temperature ?? null,
    text: { format },
    tool_choice: body?.tool_choice ?? 'auto',
    tools: (body?.tools ?? []).map((tool) => ({
      ...tool,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? null,
    })),
    top_p: body?.top_p ?? null,
    truncation: 'disabled',
    usage: result === undefined ? null : usageOf(result),
    user: body?.user ?? null,
    metadata: body?.metadata ?? {},
  }
}

/** One call's state in a stream: its item's place in the output and what has come of it. */
interface StreamedCall {
  readonly outputIndex: number
  readonly callId: string
  readonly name: string
  args: string
  isDone: boolean
}

/**
 * The stream's events. The message item opens with the first text and closes before the first
 * function call's item opens; each call's item closes at the end, once its arguments are whole.
 */
function streamFrames(ctx: RequestContext, start: StreamStart): StreamFrames {
  const ids = idsOf(ctx)
  let sequence = 0
  const event = (type: string, fields: Record<string, unknown>) => sseFrame({ type, sequence_number: sequence++, ...fields }, type)
  let outputs = 0
  let message: { outputIndex: number; text: string; isDone: boolean } | undefined
  const calls = new Map<number, StreamedCall>()

  const textPart = (index: number) => ({ item_id: ids.message, output_index: index, content_index: 0 })
  const closeMessage = (): string => {
    if (message === undefined || message.isDone) return ''
    message.isDone = true
    const where = textPart(message.outputIndex)
    return (
      event('response.output_text.done', { ...where, text: message.text, logprobs: [] }) +
      event('response.content_part.done', { ...where, part: outputText(message.text) }) +
      event('response.output_item.done', { output_index: message.outputIndex, item: messageItem(ids.message, message.text, 'completed') })
    )
  }
  const closeCall = (call: StreamedCall): string => {
    if (call.isDone) return ''
    call.isDone = true
    return (
      event('response.function_call_arguments.done', { item_id: functionCallId(call.callId), output_index: call.outputIndex, arguments: call.args }) +
      event('response.output_item.done', { output_index: call.outputIndex, item: functionCallItem(call.callId, call.name, call.args, 'completed') })
    )
  }
  const openCall = (delta: ToolCallDelta): string => {
    if (delta.id === undefined || delta.name === undefined || calls.has(delta.index)) return ''
    const call: StreamedCall = { outputIndex: outputs++, callId: delta.id, name: delta.name, args: '', isDone: false }
    calls.set(delta.index, call)
    return (
      closeMessage() +
      event('response.output_item.added', { output_index: call.outputIndex, item: functionCallItem(call.callId, call.name, '', 'in_progress') })
    )
  }

  return {
    open: () =>
      event('response.created', { response: responseOf(ctx, ids, start.model, undefined) }) +
      event('response.in_progress', { response: responseOf(ctx, ids, start.model, undefined) }),
    text(text) {
      // Text after the message closed (rare: a provider's text between calls) joins no item.
      if (text === '' || message?.isDone === true) return ''
      let out = ''
      if (message === undefined) {
        message = { outputIndex: outputs++, text: '', isDone: false }
        out +=
          event('response.output_item.added', { output_index: message.outputIndex, item: messageItem(ids.message, '', 'in_progress') }) +
          event('response.content_part.added', { ...textPart(message.outputIndex), part: outputText('') })
      }
      message.text += text
      return out + event('response.output_text.delta', { ...textPart(message.outputIndex), delta: text, logprobs: [] })
    },
    toolCall(delta) {
      let out = openCall(delta)
      const call = calls.get(delta.index)
      if (call === undefined || call.isDone || delta.arguments === '') return out
      call.args += delta.arguments
      out += event('response.function_call_arguments.delta', { item_id: functionCallId(call.callId), output_index: call.outputIndex, delta: delta.arguments })
      return out
    },
    close(result) {
      let out = closeMessage()
      for (const call of calls.values()) out += closeCall(call)
      const response = responseOf(ctx, ids, result.model, result)
      // The final response lists what the stream sent, in the stream's order.
      const streamed = [
        ...(message === undefined ? [] : [{ index: message.outputIndex, item: messageItem(ids.message, message.text, 'completed') }]),
        ...[...calls.values()].map((call) => ({ index: call.outputIndex, item: functionCallItem(call.callId, call.name, call.args, 'completed') })),
      ]
      response.output = streamed.sort((a, b) => a.index - b.index).map((entry) => entry.item)
      return out + event(response.status === 'completed' ? 'response.completed' : 'response.incomplete', { response })
    },
    // The SDKs raise an APIError for an event that carries `error`.
    error: (error: GatewayError) => {
      const body = openAiErrorBody(error)
      return event('error', { code: body.error.code, message: body.error.message, param: body.error.param, error: body.error })
    },
  }
}

export const responsesFormat: AnswerFormat = {
  json: (ctx, result) => responseOf(ctx, idsOf(ctx), result.model, result),
  stream: streamFrames,
}
