import t from 'tap'
import { decide, RETENTION_MS, type Claimant, type DoneRecord, type InFlightRecord } from '../../../../plugins/idempotency/logic/decide.ts'

const NOW = Date.UTC(2025, 0, 1)
const HOUR = 3_600_000
const me: Claimant = { hash: 'h1', now: NOW, owner: '100:me', isLive: (owner) => owner !== '300:gone', leaseMs: HOUR }
const running = (changes: Partial<InFlightRecord> = {}): InFlightRecord => ({
  state: 'in_flight',
  hash: 'h1',
  createdAt: NOW - 1000,
  requestId: 'req_1',
  owner: '100:me',
  ...changes,
})
const done: DoneRecord = {
  state: 'done',
  hash: 'h1',
  createdAt: NOW - 1000,
  requestId: 'req_1',
  answer: {
    result: {
      text: 'hi',
      provider: 'local',
      model: 'gpt-4o-mini',
      cacheHit: false,
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costCents: 0.0001 },
    },
    headers: [],
    keyId: 'key_1',
    answeredAt: NOW - 500,
    chargedMicros: 1,
  },
}

t.test('a new key runs; an answered one with the same request replays; another request is a mismatch', async (t) => {
  t.same(decide(undefined, me), { kind: 'run', takenOver: false })
  t.same(decide(done, me), { kind: 'replay', record: done })
  t.same(decide(done, { ...me, hash: 'h2' }), { kind: 'mismatch' })
  t.same(decide(running(), { ...me, hash: 'h2' }), { kind: 'mismatch' })
})

t.test('a run in this process is waited for, one in another live process is busy, a dead one is taken over', async (t) => {
  t.same(decide(running(), me), { kind: 'wait', requestId: 'req_1' })
  t.same(decide(running({ owner: '200:other' }), me), { kind: 'busy' })
  t.same(decide(running({ owner: '300:gone' }), me), { kind: 'run', takenOver: true })
})

t.test('a run older than the lease is taken over even when its owner looks alive', async (t) => {
  t.same(decide(running({ owner: '200:other', createdAt: NOW - HOUR + 1 }), me), { kind: 'busy' })
  t.same(decide(running({ owner: '200:other', createdAt: NOW - HOUR }), me), { kind: 'run', takenOver: true })
})

t.test('after 24 hours a record counts as absent, whatever it holds', async (t) => {
  const old = { ...done, createdAt: NOW - RETENTION_MS }
  t.same(decide(old, me), { kind: 'run', takenOver: false })
  t.same(decide(old, { ...me, hash: 'h2' }), { kind: 'run', takenOver: false })
  t.same(decide({ ...done, createdAt: NOW - RETENTION_MS + 1 }, me).kind, 'replay')
})
