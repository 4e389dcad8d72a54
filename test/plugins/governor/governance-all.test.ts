// governance "all": a project may have every request on the AI routes governed, so plain SDK
// traffic without governorMetadata is scanned too, with the action type of its route and the API
// key as the sender. The spec's default stays: only requests with governorMetadata are governed.
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import type { ProjectChanges } from '../../../plugins/auth/store/registry.ts'
import { call } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, SENSITIVE } from './fixtures.ts'

const ALL = { governance: 'all' } as const

async function sdkGateway(t: Test, governor: NonNullable<ProjectChanges['governor']>, answer = 'A harmless answer.') {
  const upstream = await startAnswerUpstream(answer)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { changes: { governor }, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  return { gw, upstream, openai: new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 }) }
}

t.test('plain SDK traffic is governed under governance "all": the route gives the action type, the key the sender', async (t) => {
  const { gw, openai } = await sdkGateway(t, ALL)
  const { data, response } = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `My card is ${SENSITIVE.card}` }] })
    .withResponse()
  t.equal(data.choices[0]!.message.content, 'A harmless answer.')
  t.equal(response.headers.get('x-governor-validated'), 'true')
  t.equal(response.headers.get('x-governor-violations'), '1')
  const auditId = response.headers.get('x-governor-audit-id')!
  const record = await call(`${gw.url}/api/compliance/audit/${auditId}`, { key: gw.pk })
  t.match(record.body, { kind: 'request', actionType: 'other', findingCounts: { CREDIT_CARD: 1 } })
  t.equal(record.body.sender.id, record.body.keyId, 'the sender is the API key')
  const violations = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
  t.match(violations, [{ source: 'request', category: 'CREDIT_CARD', auditId }])
})

t.test('under governance "all" strict mode blocks plain SDK traffic as it blocks governed requests, and checks the answer', async (t) => {
  const { openai, upstream } = await sdkGateway(t, { ...ALL, strictMode: true }, `The key is ${SENSITIVE.secret}.`)
  const refused = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Card ${SENSITIVE.card}, key ${SENSITIVE.secret}` }] })
    .catch((err: unknown) => err)
  t.ok(refused instanceof OpenAI.PermissionDeniedError, 'the SDK raises its 403 error')
  t.match((refused as InstanceType<typeof OpenAI.APIError>).message, /Request blocked by Governor/)
  t.equal(upstream.requests(), 0, 'the model was not called')
  const withheld = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the deploy key?' }] })
    .catch((err: unknown) => err)
  t.ok(withheld instanceof OpenAI.PermissionDeniedError, 'an answer holding a secret is withheld')
  t.equal(upstream.requests(), 1)
})

t.test('by default, as the spec says, only requests with governorMetadata are governed', async (t) => {
  const { openai } = await sdkGateway(t, { strictMode: true })
  const { response } = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Card ${SENSITIVE.card}, key ${SENSITIVE.secret}` }] })
    .withResponse()
  t.equal(response.status, 200)
  t.equal(response.headers.get('x-governor-validated'), null)
  const governed = await openai.chat.completions
    .create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Card ${SENSITIVE.card}, key ${SENSITIVE.secret}` }] },
      { headers: { 'x-governor-metadata': JSON.stringify({ actionType: 'customer_support', senderId: 'agent-7' }) } },
    )
    .catch((err: unknown) => err)
  t.ok(governed instanceof OpenAI.PermissionDeniedError)
})

t.test('governance "all" adds no refusal where the Governor is not available: plain traffic goes on ungoverned', async (t) => {
  const upstream = await startAnswerUpstream('Fine.')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, {
    changes: { governor: { ...ALL, enabled: false } },
    env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url },
  })
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const { response } = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }).withResponse()
  t.equal(response.status, 200)
  t.equal(response.headers.get('x-governor-validated'), null)
})
