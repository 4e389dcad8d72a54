import fc from 'fast-check'
import t from 'tap'
import type { Message } from '../../../../proxy/pipeline/ai-request.ts'
import { MESSAGE_OVERHEAD_TOKENS, fitContextWindow, promptTokensOf } from '../../../../plugins/router/logic/context-window.ts'
import { assistant, system, user } from '../fixtures.ts'

const O = MESSAGE_OVERHEAD_TOKENS

t.test('keeps a conversation that fits as it is', async (t) => {
  const messages = [system('s'), user('u')]
  const fit = fitContextWindow(messages, [10, 20], 100, 1000)
  t.same(fit, { fits: true, messages, dropped: 0, promptTokens: 30 + 2 * O })
  t.equal(fit.fits && fit.messages, messages, 'the same array, not a copy')
})

t.test('drops the oldest non-system messages first and keeps system messages and the last message', async (t) => {
  const messages = [system('rules'), user('q1'), assistant('a1'), user('q2'), assistant('a2'), user('q3')]
  const counts = [10, 100, 100, 100, 100, 10]
  // The window leaves room for the system message, the last two turns and the question.
  const fit = fitContextWindow(messages, counts, 50, 50 + 10 + 100 + 10 + 3 * O + 5)
  t.same(fit, {
    fits: true,
    messages: [system('rules'), assistant('a2'), user('q3')],
    dropped: 3,
    promptTokens: 120 + 3 * O,
  })
})

t.test('reports the sizes when even the system messages and the last message do not fit', async (t) => {
  const messages = [system('rules'), user('old'), user('the question')]
  const fit = fitContextWindow(messages, [500, 100, 600], 1000, 2000)
  t.same(fit, { fits: false, promptTokens: 1200 + 3 * O, minimumPromptTokens: 1100 + 2 * O })
})

t.test('never keeps a prompt over budget, never drops system messages or the last one, and keeps order', async (t) => {
  const message = fc.record({
    role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const),
    content: fc.string({ maxLength: 3 }),
  })
  fc.assert(
    fc.property(
      fc.array(fc.tuple(message, fc.integer({ min: 0, max: 500 })), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 1, max: 2000 }),
      fc.integer({ min: 100, max: 10_000 }),
      (pairs, maxTokens, window) => {
        const messages: Message[] = pairs.map(([m]) => m)
        const counts = pairs.map(([, n]) => n)
        const fit = fitContextWindow(messages, counts, maxTokens, window)
        if (!fit.fits) return fit.minimumPromptTokens + maxTokens > window
        const kept = fit.messages
        const isSubsequence = kept.every((m, i) => messages.indexOf(m, i === 0 ? 0 : messages.indexOf(kept[i - 1] as Message) + 1) !== -1)
        const keptCounts = kept.map((m) => counts[messages.indexOf(m)] as number)
        return (
          fit.promptTokens + maxTokens <= window &&
          fit.promptTokens === promptTokensOf(keptCounts) &&
          fit.dropped === messages.length - kept.length &&
          kept.at(-1) === messages.at(-1) &&
          messages.filter((m) => m.role === 'system').every((m) => kept.includes(m)) &&
          isSubsequence
        )
      },
    ),
  )
  t.pass('property held')
})

t.test('drops a tool call together with its results, and never a result alone', async (t) => {
  const call: Message = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] }
  const result = (id: string): Message => ({ role: 'tool', content: 'found', toolCallId: id })
  const messages = [user('q1'), call, result('c1'), user('q2')]
  const fit = fitContextWindow(messages, [10, 100, 100, 10], 0, 10 + 10 + 2 * O + 1)
  t.same(fit.fits && fit.messages, [user('q2')], 'the question, the call and its result go')
  t.equal(fit.fits && fit.dropped, 3)

  const answering = [user('q1'), call, result('c1')]
  const kept = fitContextWindow(answering, [10, 100, 100], 0, 200 + 2 * O + 1)
  t.same(kept.fits && kept.messages, [call, result('c1')], 'a call whose result is the last message stays with it')
  t.same(fitContextWindow(answering, [10, 100, 100], 0, 150).fits, false)
})

t.test('counts fixed tokens (tool definitions) against the window without dropping them', async (t) => {
  const messages = [user('q1'), user('q2')]
  t.same(fitContextWindow(messages, [10, 10], 100, 1000, 500), { fits: true, messages, dropped: 0, promptTokens: 520 + 2 * O })
  const trimmed = fitContextWindow(messages, [10, 10], 100, 100 + 500 + 10 + O, 500)
  t.same(trimmed, { fits: true, messages: [user('q2')], dropped: 1, promptTokens: 510 + O })
})
