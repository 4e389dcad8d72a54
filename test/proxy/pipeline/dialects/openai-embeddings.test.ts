// The official openai package's embeddings.create against the gateway's /v1: vectors from a
// provider (the mock upstream) and from the local provider, float and base64, dimensions, token
// inputs, the cache, metering, idempotency, the Governor on the inputs, and the refusals.
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../../../helpers/http.ts'
import { governedGateway, SENSITIVE } from '../../../plugins/governor/fixtures.ts'
import { startAnswerUpstream } from '../../../plugins/governor/answer-upstream.ts'
import { refused, startDialectGateway, startLocalGateway } from './fixtures.ts'

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))

t.test("a provider's vectors reach the SDK in input order, as floats and as base64, and are metered", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  // The SDK asks for base64 unless told otherwise, and decodes it.
  const { data, response } = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['first text', 'second one here'] }).withResponse()
  t.equal(data.object, 'list')
  t.equal(data.model, 'text-embedding-3-small')
  t.same(
    data.data.map((item) => item.index),
    [0, 1],
  )
  t.same(
    data.data[1]!.embedding.map((x) => Math.round(x * 1000) / 1000),
    [1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7],
    "base64 decodes to the provider's floats",
  )
  t.same(data.usage, { prompt_tokens: 5, total_tokens: 5 })
  t.equal(response.headers.get('x-gateway-model'), 'openai/text-embedding-3-small')
  // 5 tokens at $0.02 per million.
  t.equal(response.headers.get('x-credits-charged'), '0.000000')
  const sent = gw.mock.requests.at(-1)
  t.equal(sent?.path, '/v1/embeddings')
  t.match(sent?.body, { model: 'text-embedding-3-small', input: ['first text', 'second one here'], encoding_format: 'float' })

  const floats = await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'one text', encoding_format: 'float', dimensions: 3 })
  t.same(floats.data[0]!.embedding, [0, 0.1, 0.2])
  t.match(gw.mock.requests.at(-1)?.body, { model: 'text-embedding-3-large', input: ['one text'], dimensions: 3 })

  const cached = await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'one text', encoding_format: 'float', dimensions: 3 }).withResponse()
  t.equal(cached.response.headers.get('x-cache-status'), 'HIT', 'the same inputs: the cache answers')
  t.same(cached.data.data[0]!.embedding, [0, 0.1, 0.2])
  const otherLength = await openai.embeddings
    .create({ model: 'text-embedding-3-large', input: 'one text', encoding_format: 'float', dimensions: 4 })
    .withResponse()
  t.equal(otherLength.response.headers.get('x-cache-status'), 'MISS', 'other dimensions: another request')
  const asTokens = await openai.embeddings.create({ model: 'text-embedding-3-large', input: [[1, 2]], encoding_format: 'float', dimensions: 3 }).withResponse()
  t.equal(asTokens.response.headers.get('x-cache-status'), 'MISS', 'token inputs are keyed too')

  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.keys.sk })
  t.match(usage.body.models['text-embedding-3-small'], { requests: 1, tokens: 5 })
  t.match(usage.body.models['text-embedding-3-large'], { requests: 4, tokens: 8 }, 'the cache hit is recorded, free')
})

t.test("the local provider answers offline with deterministic unit vectors of the model's length", async (t) => {
  const gw = await startLocalGateway(t)
  const openai = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1` })
  const first = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'another text'] })
  t.equal(first.data.length, 2)
  t.equal(first.data[0]!.embedding.length, 1536)
  t.ok(Math.abs(norm(first.data[0]!.embedding) - 1) < 1e-5, 'a unit vector')
  t.notSame(first.data[0]!.embedding, first.data[1]!.embedding, 'each text its own vector')
  t.ok(first.usage.prompt_tokens > 0)

  const again = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello world', encoding_format: 'float' })
  t.same(again.data[0]!.embedding, first.data[0]!.embedding, 'the same text, the same vector, as floats and as base64')
  const fresh = await openai.embeddings.create(
    { model: 'text-embedding-3-small', input: 'hello world', encoding_format: 'float' },
    { headers: { 'cache-control': 'no-store' } },
  )
  t.same(fresh.data[0]!.embedding, first.data[0]!.embedding, 'and again from the model itself')
  const large = await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'hello world' })
  t.equal(large.data[0]!.embedding.length, 3072)
  const short = await openai.embeddings.create({ model: 'text-embedding-3-large', input: [[15339, 1917], [9906]], dimensions: 256 })
  t.same(
    short.data.map((item) => item.embedding.length),
    [256, 256],
    'token inputs and dimensions',
  )
  t.equal(short.usage.prompt_tokens, 3, 'a token input counts its tokens')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.key })
  t.match(usage.body.models['text-embedding-3-large'], { requests: 2 })
})

t.test('refusals: no key 401, spent budget 402, a chat model, too many dimensions and bad input 400', async (t) => {
  const gw = await startDialectGateway(t)
  const body = { model: 'text-embedding-3-small', input: 'text' }
  await refused(t, new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gw.url}/v1` }).embeddings.create(body), OpenAI.AuthenticationError, 401)
  // 200 tokens at $0.13 per million: more than the broke project's millionth of a dollar.
  const long = { model: 'text-embedding-3-large', input: 'word '.repeat(200) }
  await refused(
    t,
    new OpenAI({ apiKey: gw.keys.broke, baseURL: `${gw.url}/v1`, maxRetries: 0 }).embeddings.create(long),
    OpenAI.APIError,
    402,
    /Budget exceeded/,
  )
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  await refused(t, openai.embeddings.create({ model: 'gpt-4o', input: 'text' }), OpenAI.BadRequestError, 400, /does not make embeddings/)
  await refused(t, openai.embeddings.create({ model: 'text-embedding-3-small', input: 'text', dimensions: 4096 }), OpenAI.BadRequestError, 400, /at most 1536/)
  await refused(
    t,
    openai.chat.completions.create({ model: 'text-embedding-3-small', messages: [{ role: 'user', content: 'hi' }] }),
    OpenAI.BadRequestError,
    400,
    /embedding model/,
  )
  for (const input of ['', [], [''], [1.5], [[]], { text: 'x' }, null]) {
    const answer = await call(`${gw.url}/v1/embeddings`, { key: gw.keys.sk, body: { model: 'text-embedding-3-small', input } })
    t.equal(answer.status, 400, JSON.stringify(input))
    t.equal(answer.body.error.type, 'invalid_request_error')
  }
  const format = await call(`${gw.url}/v1/embeddings`, { key: gw.keys.sk, body: { ...body, encoding_format: 'hex' } })
  t.equal(format.status, 400)
  t.match(format.body.error.message, /encoding_format must be float or base64/)
  t.equal(gw.mock.requests.length, 0, 'no refusal reached the provider')
})

t.test('an idempotency key replays the vectors without a second call or charge', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const options = { headers: { 'idempotency-key': 'embed-once' } }
  const first = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'the same text' }, options).withResponse()
  const second = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'the same text' }, options).withResponse()
  t.same(second.data.data, first.data.data)
  t.equal(gw.mock.requests.filter((r) => r.path === '/v1/embeddings').length, 1, 'one call upstream')
  t.equal(second.response.headers.get('x-idempotent-replay'), 'true')
})

t.test('strict mode refuses an input with a card before any provider call', async (t) => {
  const upstream = await startAnswerUpstream('A harmless answer.')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true } }, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  const headers = { 'x-governor-metadata': JSON.stringify({ actionType: 'refund_denial', senderId: 'agent-7' }) }
  const answer = await call(`${gw.url}/v1/embeddings`, {
    key: gw.sk,
    headers,
    body: { model: 'text-embedding-3-small', input: ['fine', `card ${SENSITIVE.card}`] },
  })
  t.equal(answer.status, 403)
  t.match(JSON.stringify(answer.body), /Request blocked by Governor/)
  t.equal(upstream.requests(), 0)
})
