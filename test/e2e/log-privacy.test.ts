// Logs carry no user content: a provider whose error message quotes the prompt (or the personal
// data in it) leaves the status, its error type and code and a scrubbed message in the log,
// while the client still gets the provider's message.
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { call, parseSse } from '../helpers/http.ts'
import { captureLog } from '../helpers/log-capture.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

const PROMPT = 'Draft a note about the purple elephant migration for my aunt'
const PII_PROMPT = 'my card is 4111 1111 1111 1111 and my mail is jane.doe@example.com'
// The card as written, not its first digits alone: those turn up in timestamps.
const PII = ['4111 1111', 'jane.doe', 'example.com']

type Answer = (prompt: string, res: ServerResponse) => void

/** An OpenAI-shaped provider that answers every request with `answer(last message)`. */
async function startEchoingProvider(t: Test, answer: Answer): Promise<string> {
  const server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const messages = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages
      answer(messages.at(-1)!.content, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function openAiError(res: ServerResponse, status: number, error: Record<string, unknown>) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }))
}

async function gatewayWith(t: Test, answer: Answer, env: 'prod' | 'stg' | null = 'prod', logLevel: 'info' | 'trace' = 'info') {
  const baseUrl = await startEchoingProvider(t, answer)
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'sk', env }])
  const log = captureLog()
  const { url } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_API_KEY: 'sk-test-provider-key-000000', OPENAI_BASE_URL: baseUrl },
    overrides: { logLevel, plugins: { router: { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 2 } } } },
    logDestination: log.destination,
  })
  return { url, key: seeded.keys[0]!.key, log }
}

const ask = (content: string) => ({ messages: [{ role: 'user', content }], model: 'gpt-4o-mini' })

t.test('a 400 quoting the prompt: the log keeps status, type and code, never the prompt; the client gets the message (staging key)', async (t) => {
  const { url, key, log } = await gatewayWith(
    t,
    (prompt, res) =>
      openAiError(res, 400, {
        message: `Invalid value for 'messages[0].content': "${prompt}"`,
        type: 'invalid_request_error',
        param: 'messages[0].content',
        code: 'invalid_value',
      }),
    'stg',
  )
  const answer = await call(`${url}/api/ai/complete`, { key, body: ask(PROMPT) })
  t.equal(answer.status, 400)
  t.equal(answer.body.message, `openai answered 400: Invalid value for 'messages[0].content': "${PROMPT}"`, "the client gets the provider's message")
  t.notOk(log.text().includes('purple elephant'), 'no prompt text in the log')
  const failed = log.lines().find((line) => line.msg === 'provider refused the request')
  t.match(failed, {
    level: 40,
    err: {
      type: 'ProviderRefusalError',
      status: 400,
      code: 'invalid_value',
      provider: { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'messages[0].content' },
    },
  })
  t.equal(failed?.err.message, 'openai answered 400: Invalid value for [quoted]: [quoted]')
})

t.test('personal data a provider echoes, quoted or not, never reaches the log (staging key)', async (t) => {
  const messages = [
    (prompt: string) => `Input '${prompt}' is not valid`,
    (prompt: string) => `could not process ${prompt}`,
    (prompt: string) => `bad input: "${prompt.slice(0, 20)}`,
  ]
  for (const message of messages) {
    const { url, key, log } = await gatewayWith(
      t,
      (prompt, res) => openAiError(res, 422, { message: message(prompt), type: 'invalid_request_error', code: null }),
      'stg',
    )
    const answer = await call(`${url}/api/ai/complete`, { key, body: ask(PII_PROMPT) })
    t.equal(answer.body.message, `openai answered 422: ${message(PII_PROMPT)}`)
    for (const value of PII) t.notOk(log.text().includes(value), `${value} is not in the log of «${message('…')}»`)
    t.match(
      log.lines().find((line) => line.msg === 'provider refused the request'),
      { err: { provider: { status: 422, type: 'invalid_request_error' } } },
    )
  }
})

t.test('a provider echoing the prompt without quotes, a name in it, leaves none of it in any line at trace (unmarked key)', async (t) => {
  const prompt = 'Please write a birthday card for Margaret Okonkwo-Lindqvist from the purple elephant club'
  const echoes = [
    { status: 400, echo: (text: string) => `could not process ${text}`, kept: /^openai answered 400: could not process / },
    // A 5xx is retried: the attempts' warnings are checked too.
    {
      status: 500,
      echo: (text: string) => `The input ${text.slice(18, 60)} violates our usage policy. Please reduce the length of the messages.`,
      kept: /^openai answered 500: The input .* violates our usage policy\. Please reduce the length of the messages\.$/,
    },
  ]
  for (const { status, echo, kept } of echoes) {
    const { url, key, log } = await gatewayWith(
      t,
      (text, res) => openAiError(res, status, { message: echo(text), type: 'invalid_request_error', code: null }),
      null,
      'trace',
    )
    const answer = await call(`${url}/api/ai/complete`, { key, body: ask(prompt) })
    t.equal(answer.body.message, `openai answered ${status}: ${echo(prompt)}`, "the client gets the provider's message")
    const lines = log.text().split('\n')
    for (const word of ['Margaret', 'Okonkwo', 'Lindqvist', 'birthday card', 'purple elephant']) {
      t.same(
        lines.filter((line) => line.includes(word)),
        [],
        `${word} is in no line`,
      )
    }
    const failed = log.lines().find((line) => line.msg === (status < 500 ? 'provider refused the request' : 'request failed'))
    t.match(failed?.err.message, kept, "the message's own words stay")
  }
})

t.test('a retried 5xx echoing personal data leaves warnings without it (staging key)', async (t) => {
  const { url, key, log } = await gatewayWith(
    t,
    (prompt, res) => openAiError(res, 500, { message: `upstream failed on: ${prompt}`, type: 'server_error' }),
    'stg',
  )
  t.equal((await call(`${url}/api/ai/complete`, { key, body: ask(PII_PROMPT) })).status, 502)
  const warnings = log.lines().filter((line) => line.msg === 'upstream attempt failed')
  t.equal(warnings.length, 2, 'the try and its retry')
  t.match(warnings[0], { provider: 'openai', model: 'gpt-4o-mini', err: { provider: { status: 500, type: 'server_error' } } })
  for (const value of PII) t.notOk(log.text().includes(value), `${value} is not in the log`)
})

t.test('an error inside a started stream quoting the prompt is logged scrubbed and sent to the client whole', async (t) => {
  const { url, key, log } = await gatewayWith(t, (prompt, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hello' } }] })}\n\n`)
    res.end(`data: ${JSON.stringify({ error: { message: `content policy: "${prompt}"`, type: 'invalid_request_error', code: 'content_filter' } })}\n\n`)
  })
  const answer = await call(`${url}/api/ai/chat`, { key, body: ask(PROMPT) })
  const error = parseSse(answer.body as string).find((event) => event.event === 'error')
  t.equal(error?.data.message, `openai reported an error in its stream: content policy: "${PROMPT}"`)
  t.notOk(log.text().includes('purple elephant'), 'no prompt text in the log')
  t.match(
    log.lines().find((line) => line.msg === 'stream failed after it began'),
    {
      level: 50,
      err: { provider: { type: 'invalid_request_error', code: 'content_filter' }, message: 'openai reported an error in its stream: content policy: [quoted]' },
    },
  )
})
