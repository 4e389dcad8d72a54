// How long a key holds: 24 hours from its first use, on a manual clock; and across a restart of
// the gateway on the same store.
import t from 'tap'
import { RETENTION_MS } from '../../../plugins/idempotency/logic/decide.ts'
import { manualClock } from '../../helpers/manual-clock.ts'
import { freshDataDir, seedProject } from '../../helpers/start-gateway.ts'
import { body, idempotencyGateway, inspect } from './fixtures.ts'

t.test('a key replays for 24 hours after its first use, then is a new key', async (t) => {
  const clock = manualClock(Date.UTC(2025, 4, 1, 12))
  const gw = await idempotencyGateway(t, { clock })
  const first = await gw.send('complete', 'daily')
  clock.advance(RETENTION_MS - 1)
  const late = await gw.send('complete', 'daily')
  t.equal(late.headers['x-idempotent-replay'], 'true', 'replayed a millisecond before 24 hours')
  t.strictSame(late.body, first.body)
  t.equal((await gw.send('complete', 'daily', { ...body, temperature: 0.2 })).status, 409)

  clock.advance(1)
  const fresh = await gw.send('complete', 'daily', { ...body, temperature: 0.2 })
  t.equal(fresh.status, 200, 'after 24 hours the key takes another request')
  t.equal(fresh.headers['x-idempotent-replay'], undefined)
  t.equal(gw.mock.requests.length, 2)
  t.equal((await gw.send('complete', 'daily', { ...body, temperature: 0.2 })).headers['x-idempotent-replay'], 'true')
})

t.test('after a restart on the same store the retry is still replayed and not charged', async (t) => {
  const dataDir = freshDataDir(t)
  const made = await seedProject(dataDir)
  const seeded = { projectId: made.projectId, key: made.keys[0]!.key }
  const before = await idempotencyGateway(t, { dataDir, seeded })
  const first = await before.send('chat', 'restart-1')
  await before.close()

  const after = await idempotencyGateway(t, { dataDir, seeded, mock: before.mock })
  const retry = await after.send('chat', 'restart-1')
  t.equal(retry.status, 200)
  t.equal(retry.headers['x-idempotent-replay'], 'true')
  t.equal(retry.headers['x-original-request-id'], first.headers['x-request-id'])
  t.equal(before.mock.requests.length, 1)
  await after.close()

  const { entries, used } = await inspect(dataDir, (view) => ({
    entries: view.entries,
    used: view.budget(seeded.projectId, view.entries[0]!.month).usedMicros,
  }))
  t.same(
    entries.map((e) => e.id),
    [first.headers['x-request-id']],
    'one ledger entry: the original',
  )
  t.equal(used, entries[0]!.costMicros)
})
