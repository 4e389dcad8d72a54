import fc from 'fast-check'
import t from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ProviderEvent } from '../../../proxy/pipeline/completion.ts'
import type { ProviderRequest } from '../../../plugins/router/providers/adapter.ts'
import { createLocalAdapter, splitIntoChunks } from '../../../plugins/router/providers/local.ts'
import { simulateAnswer } from '../../../plugins/router/providers/local-answer.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import { caught, collect, system, user } from './fixtures.ts'

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: 'gpt-4o-mini',
    messages: [system('You are a helpful assistant.'), user('How should we plan the migration of our billing service?')],
    temperature: 0.7,
    maxTokens: 1000,
    mode: 'text',
    promptTokens: 30,
    ...overrides,
  }
}

const deltas = (events: readonly ProviderEvent[]): string[] => events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))
const signal = new AbortController().signal
const catalog = modelCatalog()

t.test('answers the same request with the same text and usage every time', async (t) => {
  const adapter = createLocalAdapter({ chunkDelayMs: 0, catalog })
  const first = await adapter.complete(request(), signal)
  const second = await createLocalAdapter({ chunkDelayMs: 0, catalog }).complete(request(), signal)
  t.same(second, first)
  t.same(deltas(await collect(adapter.stream(request(), signal))).join(''), first.text)
})

t.test('answers differently when the model, temperature, mode or messages change', async (t) => {
  const base = simulateAnswer(request()).text
  t.not(simulateAnswer(request({ model: 'gpt-4o' })).text, base)
  t.not(simulateAnswer(request({ temperature: 0.2 })).text, base)
  t.not(simulateAnswer(request({ messages: [user('How should we plan the migration of our payroll service?')] })).text, base)
  t.not(simulateAnswer(request({ mode: 'json' })).text, base)
})

t.test('answers in plausible English sentences that end with a full stop', async (t) => {
  const { text } = simulateAnswer(request())
  t.match(text, /^[A-Z][\s\S]*\.$/)
  t.ok(text.split(' ').length >= 10)
})

t.test('answers longer when the last message is longer, within a band', async (t) => {
  const lengthFor = (chars: number) => simulateAnswer(request({ messages: [user('word '.repeat(chars / 5))] })).completionTokens
  const short = lengthFor(20)
  const long = lengthFor(1000)
  const huge = lengthFor(100_000)
  t.ok(short < long, `${short} < ${long}`)
  t.ok(huge < 300, `a 100 KB question still gets a few paragraphs at most: ${huge}`)
})

t.test('never answers with more tokens than maxTokens, in text or json mode', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 300 }),
      fc.string({ maxLength: 400 }),
      fc.constantFrom('text' as const, 'json' as const),
      fc.double({ min: 0, max: 2, noNaN: true }),
      (maxTokens, content, mode, temperature) => {
        const answer = simulateAnswer(request({ maxTokens, mode, temperature, messages: [user(content)] }))
        return answer.completionTokens <= maxTokens && answer.completionTokens === countTokens(answer.text)
      },
    ),
  )
  t.pass('property held')
})

t.test('answers valid JSON with an answer field in json mode', async (t) => {
  const { text } = await createLocalAdapter({ chunkDelayMs: 0, catalog }).complete(request({ mode: 'json' }), signal)
  const parsed = JSON.parse(text) as { answer?: unknown }
  t.type(parsed.answer, 'string')
  t.ok((parsed.answer as string).length > 20)
})

t.test('streams a normal answer in at least three chunks, then reports usage', async (t) => {
  const events = await collect(createLocalAdapter({ chunkDelayMs: 0, catalog }).stream(request(), signal))
  const text = simulateAnswer(request()).text
  t.ok(deltas(events).length >= 3, `${deltas(events).length} chunks`)
  t.equal(deltas(events).join(''), text)
  t.same(events.at(-1), { type: 'usage', usage: { promptTokens: 30, completionTokens: countTokens(text) } })
})

t.test('splits text into chunks that join back to it', async (t) => {
  t.same(splitIntoChunks('one two three'), ['one ', 'two ', 'three'])
  t.same(splitIntoChunks('single'), ['single'])
  t.same(splitIntoChunks(''), [])
  const long = 'word '.repeat(500).trim()
  t.equal(splitIntoChunks(long).length, 24)
  t.equal(splitIntoChunks(long).join(''), long)
})

t.test('pauses chunkDelayMs between chunks and stops at once when aborted', async (t) => {
  const controller = new AbortController()
  const reason = new Error('client went away')
  const events = createLocalAdapter({ chunkDelayMs: 60_000, catalog }).stream(request(), controller.signal)[Symbol.asyncIterator]()
  t.equal((await events.next()).done, false, 'the first chunk comes without delay')
  const pending = events.next()
  let isSettled = false
  void pending.then(
    () => {
      isSettled = true
    },
    () => {
      isSettled = true
    },
  )
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(isSettled, false, 'the second chunk waits for the delay')
  controller.abort(reason)
  t.equal(await caught(pending), reason)
})

t.test('does not answer when the signal is already aborted', async (t) => {
  const controller = new AbortController()
  const reason = new Error('client went away')
  controller.abort(reason)
  const adapter = createLocalAdapter({ chunkDelayMs: 0, catalog })
  t.equal(await caught(adapter.complete(request(), controller.signal)), reason)
  t.equal(await caught(collect(adapter.stream(request(), controller.signal))), reason)
})

const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 2 } }, required: ['city'] },
}
const lookup = { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } }

t.test('calls the first tool with arguments that fit its schema, the same call every time', async (t) => {
  const adapter = createLocalAdapter({ chunkDelayMs: 0, catalog })
  const result = await adapter.complete(request({ tools: [weather, lookup], messages: [user('Weather in Oslo?')] }), signal)
  t.equal(result.text, '')
  t.equal(result.finishReason, 'tool_calls')
  t.equal(result.toolCalls?.length, 1)
  t.match(result.toolCalls?.[0], { id: /^call_[0-9a-f]{8}$/, name: 'get_weather' })
  t.same(JSON.parse(result.toolCalls![0]!.arguments), { city: 'Weather in Oslo?', days: 2 })
  t.same(await adapter.complete(request({ tools: [weather, lookup], messages: [user('Weather in Oslo?')] }), signal), result)
})

t.test('follows tool_choice: a named tool, none, and required even after a result', async (t) => {
  const adapter = createLocalAdapter({ chunkDelayMs: 0, catalog })
  const named = await adapter.complete(request({ tools: [weather, lookup], toolChoice: { name: 'lookup' } }), signal)
  t.same(JSON.parse(named.toolCalls![0]!.arguments), { id: '00000000-0000-4000-8000-000000000000' })
  const none = await adapter.complete(request({ tools: [weather], toolChoice: 'none' }), signal)
  t.equal(none.toolCalls, undefined)
  t.ok(none.text.length > 0)
  const afterResult = [
    user('Weather?'),
    { role: 'assistant' as const, content: '', toolCalls: named.toolCalls! },
    { role: 'tool' as const, content: 'Sunny', toolCallId: named.toolCalls![0]!.id },
  ]
  const auto = await adapter.complete(request({ tools: [weather], messages: afterResult }), signal)
  t.equal(auto.finishReason, 'stop', 'with auto, a tool result is answered with text')
  const required = await adapter.complete(request({ tools: [weather], toolChoice: 'required', messages: afterResult }), signal)
  t.equal(required.finishReason, 'tool_calls')
})

t.test('streams a tool call as its id and name, then its arguments, then the finish reason', async (t) => {
  const events = await collect(createLocalAdapter({ chunkDelayMs: 0, catalog }).stream(request({ tools: [weather] }), signal))
  const complete = await createLocalAdapter({ chunkDelayMs: 0, catalog }).complete(request({ tools: [weather] }), signal)
  const call = complete.toolCalls![0]!
  t.same(events.slice(0, 3), [
    { type: 'tool_call', delta: { index: 0, id: call.id, name: call.name, arguments: '' } },
    { type: 'tool_call', delta: { index: 0, arguments: call.arguments } },
    { type: 'finish', reason: 'tool_calls' },
  ])
  t.equal(events[3]?.type, 'usage')
})

t.test('ends the text at a stop sequence, and reports length when maxTokens cut it', async (t) => {
  const full = simulateAnswer(request())
  const word = full.text.split(' ')[3]!
  const stopped = simulateAnswer(request({ stop: [` ${word}`] }))
  t.equal(stopped.text, full.text.slice(0, full.text.indexOf(` ${word}`)))
  t.equal(stopped.finishReason, 'stop')
  t.equal(full.finishReason, 'stop')
  t.equal(simulateAnswer(request({ maxTokens: 5 })).finishReason, 'length')
})

t.test('a seed is part of what the answer depends on', async (t) => {
  t.not(simulateAnswer(request({ seed: 1 })).text, simulateAnswer(request({ seed: 2 })).text)
  t.equal(simulateAnswer(request({ seed: 1 })).text, simulateAnswer(request({ seed: 1 })).text)
})

t.test('a json_schema answer is a value of the schema', async (t) => {
  const schema = {
    type: 'object',
    properties: { title: { type: 'string', maxLength: 12 }, score: { type: 'number', minimum: 0.5 }, tags: { type: 'array', items: { type: 'string' } } },
  }
  const answer = JSON.parse(simulateAnswer(request({ mode: 'json', jsonSchema: { name: 's', schema } })).text)
  t.same(Object.keys(answer), ['title', 'score', 'tags'])
  t.ok(answer.title.length <= 12)
  t.equal(answer.score, 0.5)
  t.equal(answer.tags.length, 1)
})
