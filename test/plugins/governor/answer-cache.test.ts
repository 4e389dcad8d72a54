// What the cache may keep of a governed answer: never one that strict mode withheld or stopped,
// never one still holding a finding of high or critical severity, the redacted text and tool-call
// arguments when redaction is on; and a strict-mode cache hit is checked before its first byte.
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { lmdbAnswerStore } from '../../../plugins/cache/store/lmdb.ts'
import { encodeCacheKey } from '../../../plugins/cache/logic/cache-key.ts'
import { hashCacheKey } from '../../../workers/hash-cache-key.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { call, parseSse } from '../../helpers/http.ts'
import { startAnswerUpstream, type AnswerOptions } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE, type GovernedGatewayOptions } from './fixtures.ts'

async function gatewayAnswering(t: Test, answer: string | readonly string[], options: GovernedGatewayOptions = {}, answerOptions: AnswerOptions = {}) {
  const upstream = await startAnswerUpstream(answer, answerOptions)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { ...options, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  return { gw, upstream }
}

const STRICT = { changes: { governor: { strictMode: true } } }
const REDACTING = { changes: { governor: { redactOutput: true } } }
const deltas = (body: string) =>
  parseSse(body)
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text)
    .join('')

t.test('a stream strict mode stopped is not replayed: the identical request asks the model again', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, ['Your card: ', '4111 1111', ' 1111 1111', ', noted.'], STRICT)
  for (const attempt of [1, 2]) {
    const res = await gw.ask('chat', 'Which card?')
    t.equal(parseSse(res.body).at(-1)!.event, 'error', `attempt ${attempt} is stopped`)
    t.equal(res.headers['x-cache-status'], 'MISS')
  }
  t.equal(upstream.requests(), 2)
})

t.test('a withheld JSON answer is not replayed, on complete or on chat', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, `Key: ${SENSITIVE.secret}.`, STRICT)
  t.equal((await gw.ask('complete', 'The key?')).status, 403)
  const chat = await gw.ask('chat', 'The key?')
  t.equal(parseSse(chat.body).at(-1)!.event, 'error')
  t.equal(upstream.requests(), 2)
})

t.test('outside strict mode an answer with a high or critical finding is delivered but not cached; one with medium findings is', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, `Card ${SENSITIVE.card}.`)
  for (const _ of [1, 2]) t.equal((await gw.ask('complete', 'Which card?')).body.text, `Card ${SENSITIVE.card}.`)
  t.equal(upstream.requests(), 2, 'the card answer was not stored')
  const chat = await gw.ask('chat', 'Which card?')
  t.equal(chat.headers['x-cache-status'], 'MISS')
  t.equal(upstream.requests(), 3)

  const contact = await gatewayAnswering(t, `Write to ${SENSITIVE.email}.`)
  await contact.gw.ask('complete', 'Who?')
  t.equal((await contact.gw.ask('complete', 'Who?')).headers['x-cache-status'], 'HIT')
  t.equal(contact.upstream.requests(), 1)
})

t.test('concurrent identical requests do not share an answer that may not be cached', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, `Card ${SENSITIVE.card}.`)
  const answers = await Promise.all([1, 2, 3].map(() => gw.ask('complete', 'Which card?')))
  t.same(
    answers.map((a) => a.headers['x-cache-status']),
    ['MISS', 'MISS', 'MISS'],
  )
  t.equal(upstream.requests(), 3)
})

t.test('with redactOutput the values are replaced in JSON, in streams and in what the cache keeps', async (t) => {
  const answer = `Mail ${SENSITIVE.email}, card ${SENSITIVE.card}, key ${SENSITIVE.secret}.`
  const redacted = 'Mail [REDACTED:EMAIL_ADDRESS], card [REDACTED:CREDIT_CARD], key [REDACTED:SECRET].'
  const { gw, upstream } = await gatewayAnswering(t, answer, REDACTING)
  const json = await gw.ask('complete', 'Everything on file?')
  t.equal(json.status, 200)
  t.equal(json.body.text, redacted)
  t.match(json.headers, { 'x-governor-output-violations': '3', 'x-cache-status': 'MISS' })
  const hit = await gw.ask('complete', 'Everything on file?')
  t.equal(hit.headers['x-cache-status'], 'HIT', 'the redacted answer was stored')
  t.equal(hit.body.text, redacted)
  t.equal(upstream.requests(), 1)

  const stream = await gw.ask('chat', 'Everything on file, as a stream?')
  t.equal(deltas(stream.body), redacted)
  t.notMatch(stream.body, /ana\.lopez|4111|AKIA/)
  const done = parseSse(stream.body).at(-1)!
  t.equal(done.event, 'done')
  t.match(done.data.governor, { outputViolations: 3 })
  const record = await call(`${gw.url}/api/compliance/audit/${done.data.governor.outputAuditId}`, { key: gw.pk })
  t.match(record.body, { findingCounts: { EMAIL_ADDRESS: 1, CREDIT_CARD: 1, SECRET: 1 } }, 'the record still lists what was found')
  const replay = await gw.ask('chat', 'Everything on file, as a stream?')
  t.equal(replay.headers['x-cache-status'], 'HIT', 'the redacted stream was stored')
  t.equal(deltas(replay.body), redacted)
})

t.test('a strict-mode cache hit with a finding is blocked before its first byte', async (t) => {
  const content = 'Which card is on file?'
  const { gw, upstream } = await gatewayAnswering(t, 'Nothing is on file.', STRICT)
  const first = await gw.ask('chat', content)
  t.equal(deltas(first.body), 'Nothing is on file.')
  // An entry written before these rules (or by another version) that holds a card number.
  const { settingsVersion } = (await call(`${gw.url}/api/compliance/audit/${first.headers['x-governor-audit-id']}`, { key: gw.pk })).body
  const store = openStore(gw.dataDir)
  t.teardown(() => store.close())
  const key = hashCacheKey(
    encodeCacheKey({
      projectId: gw.projectId,
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content }],
      temperature: 0.7,
      maxTokens: 1000,
      mode: 'text',
      governorVersion: settingsVersion,
    }),
  )
  const usage = { promptTokens: 10, completionTokens: 12, totalTokens: 22, costCents: 0.01 }
  await lmdbAnswerStore(store.forPlugin('cache'), 100).put(
    key,
    { text: `Card ${SENSITIVE.card}.`, provider: 'openai', model: 'gpt-4o-mini', usage, storedAt: Date.now() },
    3_600_000,
  )

  const hit = await gw.ask('chat', content)
  t.equal(hit.status, 403)
  t.match(hit.headers['content-type'], /^application\/json/, 'refused before any byte of a stream')
  t.match(hit.body, { error: 'Request blocked by Governor', violations: [{ severity: 'HIGH' }] })
  t.notMatch(JSON.stringify(hit), '4111')
  t.equal(upstream.requests(), 1)
})

for (const [name, pieces, redactedArguments] of [
  ['a card number', ['{"card":"4111 1111', ' 1111 1111"}'], '{"card":"[REDACTED:CREDIT_CARD]"}'],
  ['a card number right after an escape sequence', ['{"note":"call me\\n4111 1111', ' 1111 1111"}'], '{"note":"call me\\n[REDACTED:CREDIT_CARD]"}'],
] as const) {
  t.test(
    `a tool call with ${name} is cached only redacted: with redactOutput the hit holds the redacted arguments, without it nothing is stored`,
    async (t) => {
      const toolCall = { id: 'call_pay', name: 'file_payment', pieces }
      const tools = [{ type: 'function' as const, function: { name: 'file_payment', parameters: { type: 'object', properties: {} } } }]
      const headers = { 'x-governor-metadata': JSON.stringify(metadata) }
      const redactedCall = { id: 'call_pay', type: 'function', function: { name: 'file_payment', arguments: redactedArguments } }
      // Deterministic (temperature 0), so the dialect's answers may be served from the cache.
      const ask = (openai: OpenAI, content: string, stream: boolean) =>
        stream
          ? openai.chat.completions
              .stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], tools, temperature: 0 }, { headers })
              .finalChatCompletion()
          : openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], tools, temperature: 0 }, { headers })

      const { gw, upstream } = await gatewayAnswering(t, 'Filing it now.', REDACTING, { toolCall })
      const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
      for (const stream of [false, true]) {
        const content = stream ? 'File the payment, as a stream.' : 'File the payment.'
        for (const attempt of ['miss', 'hit']) {
          const answer = await ask(openai, content, stream)
          t.match(answer.choices[0]!.message.tool_calls, [redactedCall], `${stream ? 'stream' : 'JSON'} ${attempt}`)
        }
      }
      t.equal(upstream.requests(), 2, 'each redacted answer was stored and replayed')

      const plain = await gatewayAnswering(t, 'Filing it now.', {}, { toolCall })
      const client = new OpenAI({ apiKey: plain.gw.sk, baseURL: `${plain.gw.url}/v1`, maxRetries: 0 })
      for (const stream of [false, true]) {
        for (const _ of [1, 2])
          t.match((await ask(client, stream ? 'Pay, streamed.' : 'Pay.', stream)).choices[0]!.message.tool_calls, [
            { function: { arguments: pieces.join('') } },
          ])
      }
      t.equal(plain.upstream.requests(), 4, 'an unredacted card in a tool call is not stored')
    },
  )
}
