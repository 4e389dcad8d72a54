import fc from 'fast-check'
import t from 'tap'
import type { ProviderEvent } from '../../../proxy/completion.ts'
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

t.test('answers the same request with the same text and usage every time', async (t) => {
  const adapter = createLocalAdapter({ chunkDelayMs: 0 })
  const first = await adapter.complete(request(), signal)
  const second = await createLocalAdapter({ chunkDelayMs: 0 }).complete(request(), signal)
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
  t.match(text, /^[A-Z][^]*\.$/)
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
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 300 }),
    fc.string({ maxLength: 400 }),
    fc.constantFrom('text' as const, 'json' as const),
    fc.double({ min: 0, max: 2, noNaN: true }),
    (maxTokens, content, mode, temperature) => {
      const answer = simulateAnswer(request({ maxTokens, mode, temperature, messages: [user(content)] }))
      return answer.completionTokens <= maxTokens && answer.completionTokens === countTokens(answer.text)
    },
  ))
  t.pass('property held')
})

t.test('answers valid JSON with an answer field in json mode', async (t) => {
  const { text } = await createLocalAdapter({ chunkDelayMs: 0 }).complete(request({ mode: 'json' }), signal)
  const parsed = JSON.parse(text) as { answer?: unknown }
  t.type(parsed.answer, 'string')
  t.ok((parsed.answer as string).length > 20)
})

t.test('streams a normal answer in at least three chunks, then reports usage', async (t) => {
  const events = await collect(createLocalAdapter({ chunkDelayMs: 0 }).stream(request(), signal))
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
  const events = createLocalAdapter({ chunkDelayMs: 60_000 }).stream(request(), controller.signal)[Symbol.asyncIterator]()
  t.equal((await events.next()).done, false, 'the first chunk comes without delay')
  const pending = events.next()
  let isSettled = false
  void pending.then(() => { isSettled = true }, () => { isSettled = true })
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(isSettled, false, 'the second chunk waits for the delay')
  controller.abort(reason)
  t.equal(await caught(pending), reason)
})

t.test('does not answer when the signal is already aborted', async (t) => {
  const controller = new AbortController()
  const reason = new Error('client went away')
  controller.abort(reason)
  const adapter = createLocalAdapter({ chunkDelayMs: 0 })
  t.equal(await caught(adapter.complete(request(), controller.signal)), reason)
  t.equal(await caught(collect(adapter.stream(request(), controller.signal))), reason)
})
