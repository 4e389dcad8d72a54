// Answers the Governor may still withhold (strict mode, JSON) are stored only once they were
// sent: a withheld answer is never replayed, a delivered one is.
import t, { type Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { startAnswerUpstream } from '../governor/answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE } from '../governor/fixtures.ts'

const LEAKY_ANSWER = `The deploy key is ${SENSITIVE.secret}.`

async function gateway(t: Test, strictMode: boolean) {
  const upstream = await startAnswerUpstream(LEAKY_ANSWER)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { changes: { governor: { strictMode } }, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  const ask = () =>
    call(`${gw.url}/api/ai/complete`, {
      key: gw.sk,
      body: { messages: [{ role: 'user', content: 'How do I deploy?' }], model: 'gpt-4o-mini', governorMetadata: metadata },
      headers: { 'idempotency-key': 'deploy-1', 'cache-control': 'no-store' },
    })
  return { upstream, ask }
}

t.test('an answer withheld in strict mode is not replayed: the retry is governed again', async (t) => {
  const { upstream, ask } = await gateway(t, true)
  const first = await ask()
  t.equal(first.status, 403)
  t.equal(first.body.code, 'governor_blocked')
  const retry = await ask()
  t.equal(retry.status, 403)
  t.equal(retry.headers['x-idempotent-replay'], undefined)
  t.notMatch(JSON.stringify(retry.body), SENSITIVE.secret)
  t.equal(upstream.requests(), 2, 'the retry ran')
})

t.test('a governed answer that was delivered is replayed with its Governor headers', async (t) => {
  const { upstream, ask } = await gateway(t, false)
  const first = await ask()
  t.equal(first.status, 200)
  const retry = await ask()
  t.equal(retry.status, 200)
  t.equal(retry.headers['x-idempotent-replay'], 'true')
  t.strictSame(retry.body, first.body)
  for (const [name, value] of Object.entries(first.headers).filter(([header]) => header.startsWith('x-governor-'))) {
    t.equal(retry.headers[name], value, name)
  }
  t.equal(upstream.requests(), 1)
})
