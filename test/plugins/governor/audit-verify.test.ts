// GET /api/compliance/audit/:auditId/verify: the check of one record, covering the chain from the
// first record through it, so records written before a changed one still verify.
import t from 'tap'
import { openStore } from '../../../proxy/stores/store.ts'
import type { AuditRecord } from '../../../plugins/governor/store/types.ts'
import { call } from '../../helpers/http.ts'
import { governedGateway } from './fixtures.ts'

t.test('a record verifies through the chain before it, and a change breaks only the records after it', async (t) => {
  const gw = await governedGateway(t)
  for (const question of ['first', 'second', 'third', 'fourth']) t.equal((await gw.ask('complete', `The ${question} question`)).status, 200)
  const store = openStore(gw.dataDir)
  t.teardown(() => store.close())
  const audit = store.forPlugin('governor').open<AuditRecord>('audit')
  const records = [...audit.getRange({ start: [gw.projectId, 0], end: [gw.projectId, Number.MAX_SAFE_INTEGER] })].filter(
    ({ value }) => value.kind === 'request',
  )
  t.equal(records.length, 4)
  const verifyOf = (auditId: string) => call(`${gw.url}/api/compliance/audit/${auditId}/verify`, { key: gw.pk })
  const last = records[3]!.value
  t.same((await verifyOf(last.id)).body, { auditId: last.id, seq: last.seq, hash: last.hash, intact: true, records: last.seq })

  const changed = records[2]!
  await audit.put(changed.key, { ...changed.value, decision: 'approved', score: 0 })
  t.match((await verifyOf(records[1]!.value.id)).body, { intact: true, records: records[1]!.value.seq }, 'the records before the change hold')
  t.match((await verifyOf(last.id)).body, { intact: false, brokenAt: changed.value.id, reason: /contents do not match its hash/ })
  t.equal((await verifyOf('aud_00000000000000000000000000')).status, 404)
  t.equal((await call(`${gw.url}/api/compliance/audit/${last.id}/verify`, { key: gw.sk })).status, 403, 'compliance records take project keys')
})
