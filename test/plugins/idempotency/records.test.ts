// The record store on a real LMDB environment: one owner per key, answers kept, keys freed, and
// the sweep removing what is older than 24 hours.
import t, { type Test } from 'tap'
import { openStore } from '../../../proxy/store.ts'
import { RETENTION_MS, type Claimant, type StoredAnswer } from '../../../plugins/idempotency/decide.ts'
import { createRecords } from '../../../plugins/idempotency/records.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'

const NOW = Date.UTC(2025, 0, 1)
const id = { projectId: 'proj_a', key: 'order-1' }
const claimant = (now = NOW, hash = 'h1'): Claimant => ({ hash, now, owner: '1:me', isLive: () => true, leaseMs: 3_600_000 })
const answer: StoredAnswer = {
  result: { text: 'hi', provider: 'local', model: 'gpt-4o-mini', cacheHit: false, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costCents: 0.0001 } },
  headers: [['x-gateway-model', 'local/gpt-4o-mini']], keyId: 'key_1', answeredAt: NOW, chargedMicros: 1,
}

function setup(t: Test) {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  return createRecords(store.forPlugin('idempotency'))
}

t.test('the first claim runs and writes an in-flight record; the next one waits for it', async (t) => {
  const records = setup(t)
  let started = 0
  t.same(await records.claim(id, claimant(), 'req_1', () => started++), { kind: 'run', takenOver: false })
  t.equal(started, 1, 'onRun is called for the run only')
  t.match(records.get(id), { state: 'in_flight', requestId: 'req_1', owner: '1:me', createdAt: NOW })
  t.same(await records.claim(id, claimant(), 'req_2', () => started++), { kind: 'wait', requestId: 'req_1' })
  t.equal(started, 1)
})

t.test('concurrent claims in one batch give the key to exactly one request', async (t) => {
  const records = setup(t)
  const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => records.claim(id, claimant(), `req_${i}`, () => {})))
  t.equal(decisions.filter((d) => d.kind === 'run').length, 1)
  t.equal(decisions.filter((d) => d.kind === 'wait').length, 7)
})

t.test('finish stores the answer of the owning run only; release frees the key of the owning run only', async (t) => {
  const records = setup(t)
  await records.claim(id, claimant(), 'req_1', () => {})
  t.equal(await records.finish(id, 'req_other', answer), false)
  await records.release(id, 'req_other')
  t.equal(records.get(id)?.state, 'in_flight')
  t.equal(await records.finish(id, 'req_1', answer), true)
  t.match(records.get(id), { state: 'done', requestId: 'req_1', createdAt: NOW, answer })
  t.equal(await records.finish(id, 'req_1', answer), false, 'an answered record is not written again')
  await records.release(id, 'req_1')
  t.equal(records.get(id), undefined)
})

t.test('the sweep removes records older than 24 hours, oldest first, a bounded number per round', async (t) => {
  const records = setup(t)
  for (let i = 0; i < 5; i++) await records.claim({ ...id, key: `old-${i}` }, claimant(NOW + i), `req_${i}`, () => {})
  await records.claim({ ...id, key: 'young' }, claimant(NOW + RETENTION_MS), 'req_young', () => {})
  const later = NOW + RETENTION_MS + 2
  t.equal(await records.sweep(later, 2), 2)
  t.equal(records.get({ ...id, key: 'old-0' }), undefined)
  t.equal(records.get({ ...id, key: 'old-2' })?.state, 'in_flight')
  t.equal(await records.sweep(later, 100), 1, 'old-2 only: old-3 and old-4 are younger than 24 hours at this time')
  t.equal(await records.sweep(later + 10, 100), 2)
  t.equal(records.get({ ...id, key: 'young' })?.state, 'in_flight')
})

t.test('a key reused after 24 hours starts afresh, and the sweep leaves the new record alone', async (t) => {
  const records = setup(t)
  await records.claim(id, claimant(), 'req_1', () => {})
  await records.finish(id, 'req_1', answer)
  const later = NOW + RETENTION_MS
  t.same(await records.claim(id, claimant(later, 'h2'), 'req_2', () => {}), { kind: 'run', takenOver: false })
  t.equal(await records.sweep(later + 1, 100), 0)
  t.match(records.get(id), { state: 'in_flight', requestId: 'req_2', hash: 'h2', createdAt: later })
})
