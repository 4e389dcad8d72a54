// Bad input is answered with a 4xx and a clear error, never a 500: each field's bad values, and
// random bodies from fast-check.
import t from 'tap'
import fc from 'fast-check'
import { call } from '../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

const user = (content: unknown) => ({ role: 'user', content })

const CASES: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ['temperature above 2', { messages: [user('hi')], temperature: 2.5 }, /temperature must be between 0 and 2/],
  ['temperature below 0', { messages: [user('hi')], temperature: -0.1 }, /temperature must be between 0 and 2/],
  ['temperature as a string', { messages: [user('hi')], temperature: 'hot' }, /temperature must be a number/],
  ['an unknown role', { messages: [{ role: 'robot', content: 'hi' }] }, /role must be one of user, assistant, system/],
  ['non-string content', { messages: [user(42)] }, /content must be a string/],
  ['empty messages', { messages: [] }, /messages must hold at least one message/],
  ['messages missing', { temperature: 1 }, /messages must be an array/],
  ['messages not an array', { messages: 'hello' }, /messages must be an array/],
  ['an unknown model', { messages: [user('hi')], model: 'gpt-5-ultra' }, /model must be one of gpt-4o, gpt-4o-mini/],
  ['an unknown quality', { messages: [user('hi')], quality: 'premium' }, /quality must be one of cheap, balanced, frontier/],
  ['an unknown mode', { messages: [user('hi')], mode: 'xml' }, /mode must be text or json/],
  ['a negative maxTokens', { messages: [user('hi')], maxTokens: -5 }, /maxTokens must be at least 1/],
  ['a fractional maxTokens', { messages: [user('hi')], maxTokens: 1.5 }, /maxTokens must be a whole number/],
  ['an unknown field', { messages: [user('hi')], temprature: 1 }, /Unrecognized key/],
  ['a bad actionType', { messages: [user('hi')], governorMetadata: { actionType: 'nuke', senderId: 'a' } }, /actionType must be one of/],
  ['a missing senderId', { messages: [user('hi')], governorMetadata: { actionType: 'other' } }, /senderId/],
  ['a JSON array body', [1, 2, 3], /Invalid request/],
]

t.test('each bad field value gets a 400 that names the problem', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  for (const [what, body, pattern] of CASES) {
    const res = await call(`${url}/api/ai/complete`, { key, body })
    t.equal(res.status, 400, what)
    t.match(res.body.error, pattern, what)
    t.equal(typeof res.body.message, 'string', what)
    t.equal(res.body.code, 'invalid_request', what)
  }
})

t.test('chat rejects json mode, which only complete offers', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const res = await call(`${url}/api/ai/chat`, { key: seeded.keys[0]!.key, body: { messages: [user('hi')], mode: 'json' } })
  t.equal(res.status, 400)
  t.match(res.body.error, /mode is only available on \/api\/ai\/complete/)
})

t.test('malformed JSON, deep nesting and __proto__ keys get a 400', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  const malformed = await call(`${url}/api/ai/complete`, { key, raw: '{"messages": [' })
  t.equal(malformed.status, 400)
  t.equal(malformed.body.error, 'Malformed JSON')
  const deep = await call(`${url}/api/ai/complete`, { key, raw: `{"messages":${'['.repeat(5000)}${']'.repeat(5000)}}` })
  t.equal(deep.status, 400)
  t.same(deep.body, { error: 'Invalid JSON body', message: 'The body nests deeper than 64 levels.', code: 'invalid_request' })
  const proto = await call(`${url}/api/ai/complete`, { key, raw: '{"messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}' })
  t.equal(proto.status, 400)
  t.equal(proto.body.error, 'Invalid JSON body')
})

t.test('random JSON bodies never produce a 5xx on either AI endpoint', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  const message = fc.record(
    { role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), fc.string()), content: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) },
    { requiredKeys: [] },
  )
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record(
      {
        messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
        temperature: fc.oneof(fc.double({ noNaN: true }), fc.string()),
        maxTokens: fc.oneof(fc.integer(), fc.double({ noNaN: true })),
        quality: fc.oneof(fc.constantFrom('cheap', 'balanced', 'frontier'), fc.string()),
        mode: fc.oneof(fc.constantFrom('text', 'json'), fc.string()),
        model: fc.oneof(fc.constantFrom('gpt-4o', 'claude-3-haiku-20240307', 'mistral-large-latest'), fc.string()),
      },
      { requiredKeys: [] },
    ),
  )
  await fc.assert(
    fc.asyncProperty(body, fc.boolean(), async (value, chat) => {
      const res = await call(`${url}/api/ai/${chat ? 'chat' : 'complete'}`, { key, raw: JSON.stringify(value) })
      return res.status < 500 && (res.status === 200 || typeof res.body.error === 'string')
    }),
    { numRuns: 150 },
  )
  t.pass('150 random bodies answered without a 5xx')
})
