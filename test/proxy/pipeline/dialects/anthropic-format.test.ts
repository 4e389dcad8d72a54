import t from 'tap'
import type { CompletionResult } from '../../../../proxy/pipeline/completion.ts'
import { anthropicFormat } from '../../../../proxy/pipeline/dialects/anthropic/format.ts'
import { parseSse } from '../../../helpers/http.ts'
import { makeContext } from '../../../helpers/make-context.ts'

const result: CompletionResult = {
  text: 'Let me check.',
  provider: 'local',
  model: 'gpt-4o',
  cacheHit: false,
  usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30, costCents: 0.01 },
  toolCalls: [
    { id: 'c1', name: 'a', arguments: '{"x":1}' },
    { id: 'c2', name: 'b', arguments: 'not json' },
  ],
  finishReason: 'tool_calls',
}

t.test('numbers text and tool_use blocks in order and closes each before the next', async (t) => {
  const frames = anthropicFormat.stream(makeContext(), { model: 'gpt-4o', promptTokens: 10 })
  const text =
    frames.open() +
    frames.text('Let me ') +
    frames.text('check.') +
    frames.toolCall({ index: 0, id: 'c1', name: 'a', arguments: '' }) +
    frames.toolCall({ index: 0, arguments: '{"x":' }) +
    frames.toolCall({ index: 1, id: 'c2', name: 'b', arguments: '{}' }) +
    frames.toolCall({ index: 0, arguments: '1}' }) +
    frames.close(result)
  const events = parseSse(text).map((e) => [e.event, e.data.index ?? null, e.data.delta?.type ?? e.data.content_block?.type ?? null])
  t.same(events, [
    ['message_start', null, null],
    ['content_block_start', 0, 'text'],
    ['content_block_delta', 0, 'text_delta'],
    ['content_block_delta', 0, 'text_delta'],
    ['content_block_stop', 0, null],
    ['content_block_start', 1, 'tool_use'],
    ['content_block_delta', 1, 'input_json_delta'],
    ['content_block_stop', 1, null],
    ['content_block_start', 2, 'tool_use'],
    ['content_block_delta', 2, 'input_json_delta'],
    ['content_block_delta', 1, 'input_json_delta'],
    ['content_block_stop', 2, null],
    ['message_delta', null, null],
    ['message_stop', null, null],
  ])
  t.match(parseSse(text).at(-2)?.data, { delta: { stop_reason: 'tool_use' }, usage: { input_tokens: 10, output_tokens: 20 } })
})

t.test('an answer without text still has its empty text block', async (t) => {
  const frames = anthropicFormat.stream(makeContext(), { model: 'gpt-4o', promptTokens: 1 })
  const events = parseSse(frames.open() + frames.close({ ...result, text: '', toolCalls: undefined, finishReason: 'length' }))
  t.same(
    events.map((e) => e.event),
    ['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop'],
  )
  t.equal(events[3]?.data.delta.stop_reason, 'max_tokens')
})

t.test('a whole message holds the text, then the tool calls with their input parsed', async (t) => {
  const message = anthropicFormat.json(makeContext(), result) as { content: unknown[]; stop_reason: string }
  t.same(message.content, [
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'c1', name: 'a', input: { x: 1 } },
    { type: 'tool_use', id: 'c2', name: 'b', input: { arguments: 'not json' } },
  ])
  t.equal(message.stop_reason, 'tool_use')
})
