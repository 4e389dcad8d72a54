// The official openai package's legacy completions.create against the gateway's /v1: a prompt
// answered by a provider (the mock upstream, through Chat Completions) and by the local provider,
// as JSON and streamed, metered, and refused as OpenAI refuses.
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../../../helpers/http.ts'
import { refused, startDialectGateway, startLocalGateway } from './fixtures.ts'

t.test("a prompt is answered as a text_completion, through the provider's chat API, and metered", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const { data, response } = await openai.completions.create({ model: 'gpt-4o-mini', prompt: 'Say this is a test', max_tokens: 20, stop: '\n' }).withResponse()
  t.equal(data.object, 'text_completion')
  t.match(data.id, /^cmpl-/)
  t.equal(data.model, 'gpt-4o-mini')
  t.same(data.choices, [{ text: 'Echo: Say this is a test', index: 0, logprobs: null, finish_reason: 'stop' }])
  t.ok(data.usage !== undefined && data.usage.total_tokens === data.usage.prompt_tokens + data.usage.completion_tokens)
  t.match(response.headers.get('x-credits-charged'), /^\d+\.\d{6}$/)
  const sent = gw.mock.requests.at(-1)
  t.equal(sent?.path, '/v1/chat/completions')
  t.match(sent?.body, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say this is a test' }], max_completion_tokens: 20, stop: ['\n'] })

  const listed = await openai.completions.create({ model: 'gpt-4o-mini', prompt: ['One prompt in a list'] })
  t.equal(listed.choices[0]!.text, 'Echo: One prompt in a list')

  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.keys.sk })
  t.match(usage.body.models['gpt-4o-mini'], { requests: 2 })
  t.ok(usage.body.models['gpt-4o-mini'].tokens > 0)
})

t.test('streams text_completion chunks that end in [DONE], with usage when include_usage asks', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const stream = await openai.completions.create({ model: 'gpt-4o', prompt: 'Stream this please', stream: true, stream_options: { include_usage: true } })
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  t.equal(chunks.map((c) => c.choices[0]?.text ?? '').join(''), 'Echo: Stream this please')
  t.ok(chunks.every((c) => c.object === 'text_completion' && c.model === 'gpt-4o'))
  t.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop')
  t.same(chunks.at(-1)?.choices, [])
  t.ok((chunks.at(-1)?.usage?.completion_tokens ?? 0) > 0)
  t.match(gw.mock.requests.at(-1)?.body, { stream: true })

  const plain = await openai.completions.create({ model: 'gpt-4o', prompt: 'Once more', stream: true })
  let text = ''
  for await (const chunk of plain) {
    t.notOk('usage' in chunk, 'no usage without include_usage')
    text += chunk.choices[0]?.text ?? ''
  }
  t.equal(text, 'Echo: Once more')
})

t.test('the local provider answers offline, as JSON and streamed', async (t) => {
  const gw = await startLocalGateway(t)
  const openai = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1` })
  const answer = await openai.completions.create({ model: 'gpt-4o-mini', prompt: 'Write a haiku about gateways', max_tokens: 40 })
  t.ok(answer.choices[0]!.text.length > 0)
  t.ok((answer.usage?.completion_tokens ?? 0) > 0)
  let streamed = ''
  for await (const chunk of await openai.completions.create({ model: 'gpt-4o-mini', prompt: 'Write a haiku about gateways', max_tokens: 40, stream: true })) {
    streamed += chunk.choices[0]?.text ?? ''
  }
  t.equal(streamed, answer.choices[0]!.text, 'the same prompt, the same answer')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.key })
  t.match(usage.body.models['gpt-4o-mini'], { requests: 2 })
})

t.test('refusals: no key 401, spent budget 402, what the gateway cannot honour 400', async (t) => {
  const gw = await startDialectGateway(t)
  const body = { model: 'gpt-4o-mini', prompt: 'hello' }
  await refused(t, new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gw.url}/v1` }).completions.create(body), OpenAI.AuthenticationError, 401)
  await refused(
    t,
    new OpenAI({ apiKey: gw.keys.broke, baseURL: `${gw.url}/v1`, maxRetries: 0 }).completions.create(body),
    OpenAI.APIError,
    402,
    /Budget exceeded/,
  )
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  await refused(t, openai.completions.create({ model: 'text-embedding-3-small', prompt: 'hello' }), OpenAI.BadRequestError, 400, /embedding model/)
  const cases: Array<[object, RegExp]> = [
    [{ prompt: ['one', 'two'] }, /one prompt per request/],
    [{ prompt: [[1, 2]] }, /prompt must be a string or an array of one string/],
    [{ prompt: 42 }, /prompt must be/],
    [{ n: 2 }, /n must be 1/],
    [{ echo: true }, /echo is not supported/],
    [{ logprobs: 3 }, /logprobs are not supported/],
    [{ suffix: 'end' }, /suffix is not supported/],
    [{ max_tokens: 0 }, /max_tokens must be at least 1/],
    [{ temperature: 3 }, /temperature must be between 0 and 2/],
  ]
  for (const [change, message] of cases) {
    const answer = await call(`${gw.url}/v1/completions`, { key: gw.keys.sk, body: { ...body, ...change } })
    t.equal(answer.status, 400, JSON.stringify(change))
    t.match(answer.body.error.message, message)
  }
  t.equal(gw.mock.requests.length, 0, 'no refusal reached the provider')
})
