// Strict mode on a client's history: a card in an earlier tool call's arguments is refused on
// both dialects before any model call, also when it follows an escape sequence in the JSON text
// ("call me\n4111…"), where the raw arguments read as one token; the audit record places it in
// the arguments as the client sent them.
import t, { type Test } from 'tap'
import { call, type JsonAnswer } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, SENSITIVE, type GovernedGateway } from './fixtures.ts'

// A high-risk action: a card alone then scores high, which strict mode blocks.
const headers = { 'x-governor-metadata': JSON.stringify({ actionType: 'refund_denial', senderId: 'agent-7' }) }
const ESCAPED = { note: `call me\n${SENSITIVE.card}` }
const PLAIN = { note: `call me ${SENSITIVE.card}` }
/** The index of the tool call's arguments among the request's texts: question, the assistant's text, its call. */
const ARGUMENTS_INDEX = 2

async function strictGateway(t: Test) {
  const upstream = await startAnswerUpstream('A harmless answer.')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, {
    changes: { governor: { strictMode: true } },
    env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url },
  })
  return { gw, upstream }
}

function askOpenAi(gw: GovernedGateway, note: object): Promise<JsonAnswer> {
  return call(`${gw.url}/v1/chat/completions`, {
    key: gw.sk,
    headers,
    body: {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Please note my number.' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_note', type: 'function', function: { name: 'note', arguments: JSON.stringify(note) } }] },
        { role: 'tool', tool_call_id: 'call_note', content: 'noted' },
        { role: 'user', content: 'Thanks, go on.' },
      ],
    },
  })
}

function askAnthropic(gw: GovernedGateway, note: object): Promise<JsonAnswer> {
  return call(`${gw.url}/v1/messages`, {
    key: gw.sk,
    headers,
    body: {
      model: 'gpt-4o-mini',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'Please note my number.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_note', name: 'note', input: note }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_note', content: 'noted' },
            { type: 'text', text: 'Thanks, go on.' },
          ],
        },
      ],
    },
  })
}

/** The answer with its audit id taken out of every place it appears, to compare two refusals. */
function withoutAuditId(answer: JsonAnswer): unknown {
  const auditId = answer.headers['x-governor-audit-id']!
  return JSON.parse(JSON.stringify(answer.body).replaceAll(auditId, '<audit>'))
}

for (const [dialect, ask] of [
  ['OpenAI', askOpenAi],
  ['Anthropic', askAnthropic],
] as const) {
  t.test(`strict mode refuses a card after an escape in a tool call's arguments on the ${dialect} dialect, as it refuses it without one`, async (t) => {
    const { gw, upstream } = await strictGateway(t)
    const plain = await ask(gw, PLAIN)
    t.equal(plain.status, 403, 'the card without an escape is refused')
    t.match(JSON.stringify(plain.body), /Request blocked by Governor/)
    const escaped = await ask(gw, ESCAPED)
    t.equal(escaped.status, 403)
    t.same(withoutAuditId(escaped), withoutAuditId(plain), 'the same error body')
    t.equal(escaped.headers['x-governor-risk-level'], plain.headers['x-governor-risk-level'])
    t.equal(escaped.headers['x-governor-risk-score'], plain.headers['x-governor-risk-score'])
    t.equal(upstream.requests(), 0, 'the provider was never called')

    const record = await call(`${gw.url}/api/compliance/audit/${escaped.headers['x-governor-audit-id']}`, { key: gw.pk })
    t.match(record.body, { kind: 'request', decision: 'blocked', findingCounts: { CREDIT_CARD: 1 } })
    const cards = (record.body.findings as { type: string; messageIndex: number; start: number; end: number }[]).filter((f) => f.type === 'CREDIT_CARD')
    t.match(cards, [{ messageIndex: ARGUMENTS_INDEX }])
    t.equal(JSON.stringify(ESCAPED).slice(cards[0]!.start, cards[0]!.end), SENSITIVE.card, 'placed in the arguments as sent')
  })
}
