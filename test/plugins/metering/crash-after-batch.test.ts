// The settlements of one turn share one journal write, made before any of their answers leaves:
// a kill -9 right after the first answer of a batch (the provider answers many requests at once)
// loses no answered request's charge, and the restart counts each exactly once.
import t from 'tap'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { crashAt } from '../../helpers/crash-at.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { until } from '../../helpers/until.ts'
import { inspect } from '../idempotency/fixtures.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
const BATCH = 16

t.test('a kill -9 right after a batch of answers keeps every answered charge, once', async (t) => {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const made = await seedProject(dataDir, { budgetDollars: 1000 })
  const crash = crashAt('answer-charged')
  const doomed = await spawnGateway(t, [...crash.nodeArgs, CLI, 'serve', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
    ...crash.env,
  })
  const exited = once(doomed.child, 'exit')
  mock.hold()
  const answered = new Map<string, number>()
  const calls = Array.from({ length: BATCH }, async (_, i) => {
    try {
      const res = await request(`${doomed.url}/api/ai/complete`, {
        method: 'POST',
        headers: { 'x-api-key': made.keys[0]!.key, 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `question ${i}` }] }),
      })
      await res.body.text()
      if (res.statusCode === 200) answered.set(String(res.headers['x-request-id']), Number(res.headers['x-credits-charged']))
    } catch {
      // Cut by the kill: never answered.
    }
  })
  await until(() => mock.held === BATCH, `${BATCH} requests held by the provider`, 30_000)
  // Every answer arrives in the same moment, so their settlements share a turn.
  mock.release()
  const [, signal] = await exited
  await Promise.all(calls)
  t.equal(signal, 'SIGKILL', 'the gateway was killed after its first charged answer')
  t.ok(answered.size >= 1, `${answered.size} answers reached the client`)

  const restarted = await startTestGateway(t, { dataDir })
  await restarted.gateway.close()
  const after = await inspect(dataDir, (view) => ({ entries: view.entries, row: view.budget(made.projectId, view.entries[0]?.month ?? '') }))
  const ids = after.entries.map((entry) => entry.id)
  t.same(
    [...answered.keys()].filter((id) => !ids.includes(id)),
    [],
    'every answered request is in the ledger',
  )
  t.equal(new Set(ids).size, ids.length, 'no request is in it twice')
  for (const entry of after.entries) {
    const told = answered.get(entry.id)
    if (told !== undefined) t.equal(entry.costMicros, Math.round(told * 1e6), `${entry.id} at the charge the client was told`)
  }
  t.equal(
    after.row.usedMicros,
    after.entries.reduce((sum, entry) => sum + entry.costMicros, 0),
    'the budget was charged exactly once for each',
  )
})
