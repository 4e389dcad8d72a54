import t from 'tap'
import { GENESIS_HASH, hashOfRecord } from '../../../../../plugins/governor/logic/audit/chain-hash.ts'
import type { AuditChain } from '../../../../../plugins/governor/store/records.ts'
import type { AuditRecord } from '../../../../../plugins/governor/store/types.ts'
import { verifyAuditChain } from '../../../../../plugins/governor/state.ts'

// Two records as stored by earlier releases, with the hashes those releases wrote: a chain on disk
// must keep verifying whatever the encoding's code looks like now.
const first = {
  seq: 1,
  prevHash: GENESIS_HASH,
  id: 'aud_01jd0000000000000000000001',
  kind: 'request',
  at: '2026-01-02T03:04:05.678Z',
  projectId: 'proj_a',
  keyId: 'key_1',
  requestId: 'req_1',
  sender: { role: 'analyst', id: 'u_ü"\\\u2028😀', department: null },
  recipientCountry: 'DE',
  actionType: 'send_email',
  model: { provider: 'openai', model: 'gpt-4o' },
  decision: 'approved',
  score: 12.5,
  level: 'low',
  reasons: [],
  findings: [{ type: 'EMAIL', start: 0, end: 11, score: 0.95 }],
  findingsTruncated: false,
  findingCounts: { PHONE: 0, EMAIL: 1, Zeta: 2, a: 3 },
  ruleMatches: [],
  violationIds: [],
  alertId: null,
  settingsVersion: 3,
  requestAuditId: null,
  hash: 'cce3011c0633cc21491a5ca31afb5ed7dbb105bc89cca040d42ffe25d794a19d',
}
const second = {
  ...first,
  seq: 2,
  prevHash: first.hash,
  id: 'aud_01jd0000000000000000000002',
  kind: 'output',
  score: -0,
  requestAuditId: first.id,
  violationIds: ['vio_1', 'vio_2'],
  findings: [],
  findingCounts: {},
  hash: 'afcd38841ba0d7e3ce3d1869f28535a7e500537437e83b32be62cd0b614db4ff',
}
const stored = [first, second] as unknown as AuditRecord[]

const chainOf = (records: readonly AuditRecord[]): AuditChain => ({
  async links(_projectId, afterSeq, throughSeq, limit) {
    return records
      .filter((r) => r.seq > afterSeq && r.seq <= throughSeq)
      .slice(0, limit)
      .map((value) => ({ seq: value.seq, value }))
  },
  async head() {
    const last = records.at(-1)!
    return { seq: last.seq, id: last.id, hash: last.hash }
  },
})

t.test('records hashed by earlier releases keep their hashes', async (t) => {
  for (const { hash, ...rest } of stored) t.equal(hashOfRecord(rest), hash)
  t.same(await verifyAuditChain(chainOf(stored), 'proj_a'), { intact: true, records: 2 })
})

t.test('the hash does not depend on the order the fields were decoded in', async (t) => {
  const { hash, ...rest } = stored[0]!
  const shuffled = Object.fromEntries(Object.entries(rest).reverse()) as typeof rest
  t.equal(hashOfRecord(shuffled), hash)
})
