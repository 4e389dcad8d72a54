// Strict mode on streamed answers: text leaves only once checked, a card number or a key stops the
// stream before its first character is sent (error event, aborted model call, metered tokens,
// records and events as for a withheld answer). Outside strict mode nothing waits, and the
// answer's findings come as trailers and in the done event.
import t, { type Test } from 'tap'
import { request } from 'undici'
import { systemClock } from '../../../proxy/kit/clock.ts'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { builtinPlugins } from '../../../plugins/index.ts'
import { call, parseSse, type SseEvent } from '../../helpers/http.ts'
import { startAnswerUpstream, type AnswerOptions } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE, type GovernedGatewayOptions } from './fixtures.ts'

const STRICT = { changes: { governor: { strictMode: true } } }
const FILLER = Array.from({ length: 12 }, (_, i) => ` More text, part ${i}.`)

async function gatewayStreaming(t: Test, pieces: readonly string[], options: GovernedGatewayOptions & AnswerOptions = {}) {
  const upstream = await startAnswerUpstream(pieces, options.gapMs === undefined ? {} : { gapMs: options.gapMs })
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { ...options, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  return { gw, upstream }
}

interface TimedStream {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly trailers: Record<string, string | string[] | undefined>
  readonly events: ReadonlyArray<SseEvent & { readonly at: number }>
  readonly body: string
}

/** A chat request read as it arrives, each event with the time it came. */
async function chat(url: string, key: string, content: string): Promise<TimedStream> {
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], governorMetadata: metadata }),
  })
  const events: Array<SseEvent & { at: number }> = []
  let body = ''
  let pending = ''
  for await (const chunk of res.body) {
    const text = (chunk as Buffer).toString('utf8')
    body += text
    pending += text
    const complete = pending.lastIndexOf('\n\n')
    if (complete === -1) continue
    for (const event of parseSse(pending.slice(0, complete + 2))) events.push({ ...event, at: performance.now() })
    pending = pending.slice(complete + 2)
  }
  return { status: res.statusCode, headers: res.headers, trailers: res.trailers, events, body }
}

const deltas = (stream: TimedStream) =>
  stream.events
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text as string)
    .join('')

for (const [name, pieces, type] of [
  ['a card number split "4111 1111" | " 1111 1111"', ['Your card is ', '4111 1111', ' 1111 1111', ', keep it safe.', ...FILLER], 'CREDIT_CARD'],
  ['an AWS key id split "AKIA" | "IOSFODNN7EXAMPLF"', ['The deploy key is ', 'AKIA', 'IOSFODNN7EXAMPLF', ' for now.', ...FILLER], 'SECRET'],
] as const) {
  t.test(`strict mode stops ${name} before any character of it is sent`, async (t) => {
    const { gw, upstream } = await gatewayStreaming(t, pieces, { ...STRICT, gapMs: 50, plugins: builtinPlugins.filter((p) => p.name !== 'webhooks') })
    const stream = await chat(gw.url, gw.sk, 'What is on file?')
    t.equal(stream.status, 200)
    t.equal(deltas(stream), pieces[0], 'only the text before the value went out')
    t.notMatch(stream.body, /4111|AKIA|IOSF/)
    const last = stream.events.at(-1)!
    t.equal(last.event, 'error')
    t.equal(stream.events.filter((e) => e.event === 'done').length, 0)
    const auditId = last.data.auditId as string
    t.match(last.data, {
      error: 'Response blocked by Governor',
      code: 'governor_response_blocked',
      auditId: /^aud_/,
      riskLevel: String,
      found: [type],
      violations: [{ type: String, severity: /HIGH|CRITICAL/ }],
    })
    t.match(last.data.message, auditId)

    await upstream.whenAborted()
    t.ok(upstream.aborted() >= 1, 'the model call was aborted')
    t.equal(upstream.requests(), 1)

    const record = await call(`${gw.url}/api/compliance/audit/${auditId}`, { key: gw.pk })
    t.match(record.body, { kind: 'output', decision: 'blocked', requestAuditId: stream.headers['x-governor-audit-id'], findingCounts: { [type]: 1 } })
    const violations = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
    t.match(violations, [{ source: 'output', category: type, auditId }])
    const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
    t.match(alert, { type: 'blocked_output', title: 'Model answer blocked by Governor', auditId, status: 'open' })
    const store = openStore(gw.dataDir)
    t.teardown(() => store.close())
    const emitted = createOutbox(store.root, systemClock).pending(100)
    t.match(
      emitted.find((e) => e.type === 'violation.detected'),
      { data: { violation_id: violations[0].id, description: `1 × ${type} in the model's answer` } },
    )
    t.match(
      emitted.find((e) => e.type === 'alert.created'),
      { data: { alert_id: alert.id, title: 'Model answer blocked by Governor' } },
    )
    t.notMatch(JSON.stringify(emitted), /4111 1111|AKIAIOSF/)

    const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}&period=day`, { key: gw.sk })
    const metered = usage.body.models['gpt-4o-mini']
    t.match(metered, { requests: 1 }, 'the stopped stream is metered')
    t.ok(metered.tokens > 10 && metered.cost > 0, 'for the prompt and what the model generated, the held-back value included')
  })
}

t.test('a card written a group per line, split over chunks and lines, is stopped in strict mode and redacted whole with redactOutput', async (t) => {
  const pieces = ['Card on file:\n4539', '\n1488\n', '0343', '\n6467\n', 'keep it safe.', ...FILLER]
  const strict = await gatewayStreaming(t, pieces, STRICT)
  const stopped = await chat(strict.gw.url, strict.gw.sk, 'What is on file?')
  t.equal(deltas(stopped), 'Card on file:\n')
  t.match(stopped.events.at(-1), { event: 'error', data: { code: 'governor_response_blocked', found: ['CREDIT_CARD'] } })
  t.notMatch(stopped.body, /4539|1488|0343|6467/)

  const redacting = await gatewayStreaming(t, pieces, { changes: { governor: { redactOutput: true } } })
  const redacted = await chat(redacting.gw.url, redacting.gw.sk, 'What is on file?')
  t.equal(deltas(redacted), `Card on file:\n[REDACTED:CREDIT_CARD]\nkeep it safe.${FILLER.join('')}`)
  t.notMatch(redacted.body, /4539|1488|0343|6467/)
})

t.test('strict mode sends prose as it comes: the first delta arrives long before the model has finished', async (t) => {
  const pieces = ['Sure', ', here is', ' the summary', ' you asked for.']
  const { gw } = await gatewayStreaming(t, pieces, { ...STRICT, gapMs: 250 })
  const stream = await chat(gw.url, gw.sk, 'Summarise')
  const first = stream.events.find((e) => e.event === 'delta')!
  const done = stream.events.find((e) => e.event === 'done')!
  t.equal(first.data.text, 'Sure')
  t.ok(done.at - first.at >= 300, `the first delta came ${Math.round(done.at - first.at)} ms before the end`)
  t.equal(deltas(stream), pieces.join(''))
})

t.test('outside strict mode a stream is not held: its findings come in the done event and as trailers', async (t) => {
  const pieces = [`Card ${SENSITIVE.card}`, `, mail ${SENSITIVE.email}`, ' and that is all.']
  const { gw } = await gatewayStreaming(t, pieces, { gapMs: 250 })
  const stream = await chat(gw.url, gw.sk, 'What is on file?')
  t.equal(deltas(stream), pieces.join(''), 'delivered as generated')
  const first = stream.events.find((e) => e.event === 'delta')!
  const done = stream.events.find((e) => e.event === 'done')!
  t.equal(first.data.text, pieces[0], 'the first chunk goes out whole, card included, as it arrives')
  t.ok(done.at - first.at >= 200)
  t.match(stream.headers.trailer, /x-governor-output-violations, x-governor-output-risk-level/)
  t.match(stream.trailers, { 'x-governor-output-violations': '2', 'x-governor-output-risk-level': 'medium' })
  t.match(done.data.governor, { outputViolations: 2, outputRiskLevel: 'medium', outputAuditId: /^aud_/ })
  const record = await call(`${gw.url}/api/compliance/audit/${done.data.governor.outputAuditId}`, { key: gw.pk })
  t.match(record.body, { kind: 'output', decision: 'approved', findingCounts: { CREDIT_CARD: 1, EMAIL_ADDRESS: 1 } })
})

t.test("a governed JSON answer carries the answer's findings as headers", async (t) => {
  const { gw } = await gatewayStreaming(t, [`Mail ${SENSITIVE.email}.`])
  const res = await gw.ask('complete', 'Who do I write to?')
  t.match(res.headers, { 'x-governor-output-violations': '1', 'x-governor-output-risk-level': 'low' })
})
