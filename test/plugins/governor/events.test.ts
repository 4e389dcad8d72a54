// The Governor's records emit the spec's events into the outbox, in the transaction of the change:
// violation.detected and alert.created with the spec's data fields, then the state changes.
import t from 'tap'
import { systemClock } from '../../../proxy/kit/clock.ts'
import type { GatewayEvent } from '../../../proxy/stores/events/index.ts'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { call } from '../../helpers/http.ts'
import { builtinPlugins } from '../../../plugins/index.ts'
import { governedGateway, SENSITIVE } from './fixtures.ts'

t.test('a blocked request emits violation.detected and alert.created; acknowledging, resolving and cases emit theirs', async (t) => {
  // Without the webhooks plugin nothing takes events out of the outbox, so the test can read them.
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true } }, plugins: builtinPlugins.filter((p) => p.name !== 'webhooks') })
  const store = openStore(gw.dataDir)
  t.teardown(() => store.close())
  const outbox = createOutbox(store.root, systemClock)
  const emitted = (): GatewayEvent[] => outbox.pending(1000)

  const blocked = await gw.ask('complete', `Key ${SENSITIVE.secret}`)
  t.equal(blocked.status, 403)
  const [violation] = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
  const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
  t.match(emitted(), [
    {
      type: 'violation.detected',
      project_id: gw.projectId,
      id: /^evt_/,
      timestamp: String,
      data: { violation_id: violation.id, type: 'SECURITY', severity: 'CRITICAL', description: '1 × SECRET in the request' },
    },
    { type: 'compliance.score_changed', project_id: gw.projectId, data: { previous_score: 100, score: 80, open_violations: { CRITICAL: 1 } } },
    {
      type: 'alert.created',
      project_id: gw.projectId,
      data: { alert_id: alert.id, severity: 'HIGH', title: 'Request blocked by Governor', message: alert.message },
    },
  ])
  t.notMatch(JSON.stringify(emitted()), SENSITIVE.secret)

  await call(`${gw.url}/api/compliance/alerts/${alert.id}/acknowledge`, { key: gw.pk, method: 'POST' })
  await call(`${gw.url}/api/compliance/alerts/${alert.id}/resolve`, { key: gw.pk, method: 'POST' })
  const created = await call(`${gw.url}/api/compliance/cases`, { key: gw.pk, body: { title: 'Leaked key', violationIds: [violation.id] } })
  await call(`${gw.url}/api/compliance/cases/${created.body.id}`, { key: gw.pk, method: 'PATCH', body: { status: 'investigating' } })
  await call(`${gw.url}/api/compliance/cases/${created.body.id}/resolve`, { key: gw.pk, method: 'POST' })
  t.same(
    emitted().map((e) => e.type),
    [
      'violation.detected',
      'compliance.score_changed',
      'alert.created',
      'alert.acknowledged',
      'alert.resolved',
      'case.created',
      'case.updated',
      'violation.resolved',
      'compliance.score_changed',
      'case.resolved',
    ],
  )
  t.match(emitted().at(-3), { data: { violation_id: violation.id, status: 'resolved', case_id: created.body.id } })
  t.match(emitted().at(-2), { data: { previous_score: 80, score: 100 } }, 'resolving the violation restores the score')
  t.match(emitted().at(-1), { data: { case_id: created.body.id, status: 'resolved', violation_ids: [violation.id] } })
})
