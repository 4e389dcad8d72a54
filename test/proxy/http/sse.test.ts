// Keep-alive comments on a silent stream: while the model has sent nothing, the client gets the
// status line and a comment every interval instead of silence (which proxies cut), the answer
// follows as usual, the official SDKs skip the comments, and a failure after the stream was opened
// arrives as the format's error event.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { hello, parseSse } from '../../helpers/http.ts'
import { startMockedGateway } from '../../helpers/mocked-gateway.ts'
import { until } from '../../helpers/until.ts'
import { KEEP_ALIVE_FRAME } from '../../../proxy/http/sse.ts'

// Short, so that a test waits for a few of them; nothing here depends on how late a timer fires.
const KEEP_ALIVE_MS = 30

function setup(t: Test, streamKeepAliveMs = KEEP_ALIVE_MS, attempts = 0) {
  return startMockedGateway(t, { streamKeepAliveMs, plugins: { router: { retry: { attempts, baseDelayMs: 0, maxDelayMs: 0 } } } })
}

/** A streamed body read piece by piece: `until` reads on until its text holds `count` keep-alive comments. */
function reader(body: AsyncIterable<Buffer>) {
  const pieces = body[Symbol.asyncIterator]()
  let text = ''
  return {
    get text() {
      return text
    },
    async until(count: number): Promise<void> {
      while (text.split(KEEP_ALIVE_FRAME).length - 1 < count) {
        const next = await pieces.next()
        if (next.done === true) throw new Error(`the stream ended after ${text.split(KEEP_ALIVE_FRAME).length - 1} keep-alive comments`)
        text += next.value.toString('utf8')
      }
    },
    async rest(): Promise<string> {
      for (let next = await pieces.next(); next.done !== true; next = await pieces.next()) text += next.value.toString('utf8')
      return text
    },
  }
}

t.test('a model that stays silent gets the stream opened and kept alive, and its answer follows', async (t) => {
  const { mock, url, key } = await setup(t)
  mock.hold()
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  t.equal(res.statusCode, 200, 'the status is sent while the model has not answered')
  await until(() => mock.held === 1, 'the request reached the model, which holds it')
  t.match(res.headers['content-type'], /^text\/event-stream/)
  t.equal(res.headers['x-cache-status'], 'MISS')
  t.equal(res.headers['x-gateway-model'], undefined, 'which model serves is not known yet')
  t.equal(res.headers.trailer, 'x-gateway-model, x-gateway-completion-tokens, x-credits-charged, x-credits-remaining')
  const body = reader(res.body)
  await body.until(2)
  // How many comments arrived depends on how long the request took to reach the model; at least two did.
  t.equal(body.text.replaceAll(KEEP_ALIVE_FRAME, ''), '', 'nothing but comments before the model speaks')
  mock.release()
  const events = parseSse(await body.rest())
  t.ok(events.filter((e) => e.event === 'delta').length >= 2, 'the answer follows as delta events')
  t.match(events.at(-1), { event: 'done', data: { provider: 'openai', cacheHit: false, usage: { completionTokens: Number } } })
  t.equal(res.trailers['x-gateway-completion-tokens'], String(events.at(-1)!.data.usage.completionTokens), 'the trailers still close it')
  t.equal(res.trailers['x-gateway-model'], `openai/${events.at(-1)!.data.model}`, 'the model that served follows as a trailer')
})

t.test('a failure after the stream was opened is its error event, not a status', async (t) => {
  const { mock, url, key } = await setup(t)
  mock.hold()
  mock.fail('bad-request')
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  t.equal(res.statusCode, 200)
  const body = reader(res.body)
  await body.until(1)
  mock.release()
  const events = parseSse(await body.rest())
  t.same(
    events.map((e) => e.event),
    ['error'],
  )
  t.match(events[0]!.data, { error: 'Invalid request', code: 'context_length_exceeded' })
})

t.test('a retry still serves a stream that was kept alive: nothing of an answer had gone out', async (t) => {
  const { mock, url, key } = await setup(t, KEEP_ALIVE_MS, 1)
  mock.hold()
  mock.fail('server-error')
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  const body = reader(res.body)
  await body.until(1)
  mock.release()
  const events = parseSse(await body.rest())
  t.equal(events.at(-1)?.event, 'done')
  t.equal(mock.requests.length, 2, 'the failed call and its retry')
})

t.test('a fallback that serves a stream kept alive is the model its trailer names', async (t) => {
  const { mock, url, key } = await startMockedGateway(t, {
    streamKeepAliveMs: KEEP_ALIVE_MS,
    plugins: { router: { retry: { attempts: 0, baseDelayMs: 0, maxDelayMs: 0 }, fallback: { balanced: 'claude-3-haiku-20240307' } } },
  })
  mock.hold()
  mock.fail('server-error')
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  t.equal(res.headers['x-gateway-model'], undefined)
  const body = reader(res.body)
  await body.until(1)
  mock.release()
  const events = parseSse(await body.rest())
  t.match(events.at(-1), { event: 'done', data: { provider: 'anthropic', model: 'claude-3-haiku-20240307' } })
  t.equal(res.trailers['x-gateway-model'], 'anthropic/claude-3-haiku-20240307')
})

t.test('a model that answers within the interval sends no comment', async (t) => {
  const { url, key } = await setup(t, 60_000)
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  t.equal(res.headers['x-gateway-model'], 'openai/gpt-4o-mini', 'the model is a header as usual')
  const text = await res.body.text()
  t.notOk(text.includes(KEEP_ALIVE_FRAME))
  t.equal(res.trailers['x-gateway-model'], undefined)
  t.equal(parseSse(text).at(-1)?.event, 'done')
})

t.test('before the interval a failure is still a plain error status', async (t) => {
  const { mock, url, key } = await setup(t, 60_000)
  mock.fail('bad-request')
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  t.equal(res.statusCode, 400, "the provider's status")
  t.match(await res.body.json(), { error: 'Invalid request', code: 'context_length_exceeded' })
})

/** A fetch for an SDK that keeps a copy of each response's raw body text. */
function recordingFetch() {
  const bodies: Promise<string>[] = []
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init)
    if (res.body === null) return res
    const [kept, given] = res.body.tee()
    bodies.push(new Response(kept).text())
    return new Response(given, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
  return { fetch: recording, bodies }
}

t.test('the official OpenAI and Anthropic SDKs skip the comments', async (t) => {
  const { mock, url, key } = await setup(t)
  const openAiFetch = recordingFetch()
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, fetch: openAiFetch.fetch, maxRetries: 0 })
  mock.hold()
  // The SDK returns the stream once the status line is in: here, only a keep-alive can have sent it.
  const chunks = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }], stream: true })
  mock.release()
  let text = ''
  for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? ''
  t.equal(text, 'Echo: Hello there')
  t.ok((await openAiFetch.bodies[0]!).startsWith(KEEP_ALIVE_FRAME), 'the OpenAI stream began with a comment')

  const anthropicFetch = recordingFetch()
  const anthropic = new Anthropic({ apiKey: key, baseURL: url, fetch: anthropicFetch.fetch, maxRetries: 0 })
  mock.hold()
  const events = await anthropic.messages.create({
    model: 'claude-3-haiku-20240307',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'Hello there' }],
    stream: true,
  })
  mock.release()
  let said = ''
  for await (const event of events) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') said += event.delta.text
  t.equal(said, 'Echo: Hello there')
  t.ok((await anthropicFetch.bodies[0]!).startsWith(KEEP_ALIVE_FRAME), 'the Anthropic stream began with a comment')
})
