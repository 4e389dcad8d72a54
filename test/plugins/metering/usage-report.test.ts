// The usage statistics add the period's totals and a row per day (for the dashboard's chart),
// read from the same ledger as the spec's fields, so the rows add up to them: on LMDB, and on
// PostgreSQL when DATABASE_URL is set.
import t, { type Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const DAY_MS = 86_400_000

async function rowPerDay(t: Test, env: NodeJS.ProcessEnv = {}) {
  const dataDir = freshDataDir(t)
  // The project is where the gateway reads projects: its database when it has one.
  const seeded = await seedProject(dataDir, { budgetDollars: 5 }, undefined, env.DATABASE_URL === undefined ? {} : { databaseUrl: env.DATABASE_URL })
  const clock = manualClock(Date.parse('2026-03-03T12:00:00Z'))
  const { url } = await startTestGateway(t, { dataDir, clock, env })
  const key = seeded.keys[0]!.key
  const ask = (content: string) => call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content }] } })
  await ask('Tuesday question')
  await ask('Tuesday question')
  clock.advance(2 * DAY_MS)
  await ask('Thursday question')

  const week = await call(`${url}/api/usage?projectId=${seeded.projectId}&period=week`, { key })
  t.equal(week.status, 200)
  const { daily, totals, models, cache } = week.body
  t.same(
    daily.map((d: { date: string }) => d.date),
    ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08'],
  )
  t.same(
    daily.map((d: { requests: number }) => d.requests),
    [0, 2, 0, 1, 0, 0, 0],
  )
  t.same(
    daily.map((d: { cacheHits: number }) => d.cacheHits),
    [0, 1, 0, 0, 0, 0, 0],
  )
  const model = models['gpt-4o-mini']
  t.equal(totals.requests, model.requests)
  t.equal(totals.tokens, model.tokens)
  t.equal(totals.cost, model.cost)
  t.equal(
    daily.reduce((sum: number, d: { tokens: number }) => sum + d.tokens, 0),
    totals.tokens,
  )
  t.ok(Math.abs(daily.reduce((sum: number, d: { cost: number }) => sum + d.cost, 0) - totals.cost) < 1e-6)
  t.same(cache, { hits: 1, misses: 2, hitRate: 33.33 })
  t.equal((await call(`${url}/api/usage?projectId=${seeded.projectId}&period=day`, { key })).body.daily.length, 1)
}

t.test('a row per day of the period, adding up to the totals and the per-model figures', (t) => rowPerDay(t))

t.test('the same, read from PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await rowPerDay(t, { DATABASE_URL: await server.freshDatabase(t) })
})
