// The hand-written check of /api/ai bodies must be invisible: for any body, the same request
// (keys in the same order, so cache keys and logs do not move) or the same 400 as zod's schemas.
import t from 'tap'
import fc from 'fast-check'
import { chatRequestSchema, completeRequestSchema } from '../../../proxy/pipeline/ai-request.ts'
import { parseAiBody } from '../../../proxy/http/ai-body.ts'
import { validate } from '../../../proxy/http/validate.ts'

function outcome(parse: () => unknown): string {
  try {
    return `ok ${JSON.stringify(parse())}`
  } catch (err) {
    return `error ${JSON.stringify(err)} ${(err as Error).message}`
  }
}

const nearly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: fc.anything(), weight: 1 })
const message = fc.oneof(
  { arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string() }), weight: 8 },
  { arbitrary: fc.record({ content: fc.string(), role: fc.constantFrom('user', 'tool', 'User') }), weight: 1 },
  { arbitrary: fc.record({ role: fc.constant('user'), content: fc.string(), name: fc.string() }), weight: 1 },
  { arbitrary: fc.anything(), weight: 1 },
)
const body = fc.record(
  {
    messages: nearly(fc.array(message, { minLength: 0, maxLength: 4 })),
    quality: nearly(fc.constantFrom('cheap', 'balanced', 'frontier', 'best')),
    temperature: nearly(fc.oneof(fc.double({ min: -1, max: 3, noNaN: true }), fc.constantFrom(0, 2, 0.7))),
    model: nearly(fc.constantFrom('gpt-4o-mini', 'claude-3-5-haiku-latest', 'no-such-model', 'balanced')),
    maxTokens: nearly(fc.oneof(fc.integer({ min: -5, max: 40_000 }), fc.double({ min: 0, max: 10 }), fc.constantFrom(1, 32_768, 32_769))),
    mode: nearly(fc.constantFrom('text', 'json', 'xml')),
    governorMetadata: fc.record({ actionType: fc.constantFrom('other', 'refund'), senderId: fc.string({ maxLength: 3 }) }),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
)

t.test('a body gets the same request or the same 400 as the zod schemas give it, on both routes', async (t) => {
  fc.assert(
    fc.property(body, fc.boolean(), (value, stream) => {
      const schema = stream ? chatRequestSchema : completeRequestSchema
      return outcome(() => parseAiBody(value, stream)) === outcome(() => validate(schema, value))
    }),
    { numRuns: 5000 },
  )
})

t.test('a null where a default stands is refused as zod refuses it, not taken as absent', async (t) => {
  for (const field of ['quality', 'maxTokens', 'mode']) {
    for (const stream of [false, true]) {
      const value = { messages: [{ role: 'user', content: '' }], [field]: null }
      const schema = stream ? chatRequestSchema : completeRequestSchema
      t.equal(
        outcome(() => parseAiBody(value, stream)),
        outcome(() => validate(schema, value)),
        `${field}: null, stream ${stream}`,
      )
      t.throws(() => parseAiBody(value, stream), { status: 400, message: /./ })
    }
  }
})

t.test('the common bodies are taken, with the spec defaults filled in and no temperature the client did not send', async (t) => {
  const request = parseAiBody({ messages: [{ role: 'user', content: 'hi' }] }, false)
  t.same(request, { messages: [{ role: 'user', content: 'hi' }], quality: 'balanced', maxTokens: 1000, mode: 'text' })
  t.notOk('temperature' in request, 'the model decides its default (sampling.ts)')
  t.same(Object.keys(parseAiBody({ messages: [{ role: 'user', content: 'hi' }], model: 'gpt-4o', temperature: 0 }, false)), [
    'messages',
    'quality',
    'temperature',
    'model',
    'maxTokens',
    'mode',
  ])
  t.throws(() => parseAiBody({ messages: [{ role: 'user', content: 'hi' }], mode: 'json' }, true), {
    status: 400,
    message: /mode is only available on \/api\/ai\/complete/,
  })
})
