// Answers in Anthropic's Messages shape: a `message` object of content blocks, or the typed SSE
// events from message_start to message_stop, with text and tool_use blocks numbered in order.
import type { AnswerFormat, StreamFrames, StreamStart } from '../../answer-format.ts'
import type { CompletionResult, FinishReason } from '../../completion.ts'
import type { RequestContext } from '../../context.ts'
import { sseFrame } from '../../../http/sse.ts'
import { anthropicErrorBody } from './errors.ts'

const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
}

const event = (data: { readonly type: string; readonly [field: string]: unknown }): string => sseFrame(data, data.type)

function inputOf(args: string): unknown {
  try {
    return args === '' ? {} : JSON.parse(args)
  } catch {
    // A model's garbled arguments still reach the client, as text it can inspect.
    return { arguments: args }
  }
}

function messageOf(ctx: RequestContext, result: CompletionResult) {
  const calls = result.toolCalls ?? []
  const content: unknown[] = result.text !== '' || calls.length === 0 ? [{ type: 'text', text: result.text }] : []
  for (const call of calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call.arguments) })
  return {
    id: `msg_${ctx.id}`,
    type: 'message',
    role: 'assistant',
    model: result.model,
    content,
    stop_reason: STOP_REASONS[result.finishReason ?? 'stop'],
    stop_sequence: null,
    usage: { input_tokens: result.usage.promptTokens, output_tokens: result.usage.completionTokens },
  }
}

function streamFrames(ctx: RequestContext, start: StreamStart): StreamFrames {
  let blocks = 0
  let openBlock: { readonly index: number; readonly kind: 'text' | 'tool' } | undefined
  // A tool call's index among the answer's calls → its content block's index.
  const blockOfCall = new Map<number, number>()

  const closeOpenBlock = (): string => {
    if (openBlock === undefined) return ''
    const frame = event({ type: 'content_block_stop', index: openBlock.index })
    openBlock = undefined
    return frame
  }
  const startBlock = (kind: 'text' | 'tool', contentBlock: unknown): string => {
    const closed = closeOpenBlock()
    openBlock = { index: blocks++, kind }
    return closed + event({ type: 'content_block_start', index: openBlock.index, content_block: contentBlock })
  }

  return {
    open: () =>
      event({
        type: 'message_start',
        message: {
          id: `msg_${ctx.id}`,
          type: 'message',
          role: 'assistant',
          model: start.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: start.promptTokens, output_tokens: 0 },
        },
      }),
    text(text) {
      if (text === '') return ''
      const opened = openBlock?.kind === 'text' ? '' : startBlock('text', { type: 'text', text: '' })
      return opened + event({ type: 'content_block_delta', index: openBlock!.index, delta: { type: 'text_delta', text } })
    },
    toolCall(delta) {
      let frames = ''
      if (delta.id !== undefined && delta.name !== undefined && !blockOfCall.has(delta.index)) {
        frames += startBlock('tool', { type: 'tool_use', id: delta.id, name: delta.name, input: {} })
        blockOfCall.set(delta.index, openBlock!.index)
      }
      const index = blockOfCall.get(delta.index)
      if (index === undefined || delta.arguments === '') return frames
      return frames + event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: delta.arguments } })
    },
    close(result) {
      // An answer with no content at all still has its (empty) text block, as Anthropic sends it.
      const empty = blocks === 0 ? startBlock('text', { type: 'text', text: '' }) : ''
      return (
        empty +
        closeOpenBlock() +
        event({
          type: 'message_delta',
          delta: { stop_reason: STOP_REASONS[result.finishReason ?? 'stop'], stop_sequence: null },
          usage: { input_tokens: result.usage.promptTokens, output_tokens: result.usage.completionTokens },
        }) +
        event({ type: 'message_stop' })
      )
    },
    error: (error) => event(anthropicErrorBody(error)),
  }
}

export const anthropicFormat: AnswerFormat = {
  json: messageOf,
  stream: streamFrames,
}
