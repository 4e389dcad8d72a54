// An answered request's charge survives a kill -9 that comes before the ledger's commit: the
// gateway kills itself as soon as the answer is complete (a crash point the test preloads), the charge being
// then only in the settlement journal; a restart replays it, once.
import t from 'tap'
import { once } from 'node:events'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { crashAt } from '../../helpers/crash-at.ts'
import { parseSse } from '../../helpers/http.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { inspect } from '../idempotency/fixtures.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
const body = { messages: [{ role: 'user', content: 'What does a journal keep?' }], maxTokens: 64 }

for (const route of ['complete', 'chat'] as const) {
  t.test(`a kill -9 right after the answer keeps its charge (${route})`, async (t) => {
    const dataDir = freshDataDir(t)
    const made = await seedProject(dataDir)
    const crash = crashAt('answer-charged')
    const doomed = await spawnGateway(t, [...crash.nodeArgs, CLI, 'serve', '--data', dataDir], {
      ...process.env,
      TOLLGATE_SECRET: TEST_SECRET,
      PORT: '0',
      LOG_LEVEL: 'silent',
      LOCAL_CHUNK_DELAY_MS: '0',
      ...crash.env,
    })
    const exited = once(doomed.child, 'exit')
    const res = await request(`${doomed.url}/api/ai/${route}`, {
      method: 'POST',
      headers: { 'x-api-key': made.keys[0]!.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.body.text()
    const [, signal] = await exited
    t.equal(signal, 'SIGKILL', 'the gateway was killed once the answer was complete')
    t.equal(res.statusCode, 200)
    const charged =
      route === 'chat' ? Number(parseSse(text).find((event) => event.event === 'done')!.data.creditsCharged) : Number(res.headers['x-credits-charged'])
    t.ok(charged > 0, 'the client was told what it was charged')
    t.ok(
      readdirSync(join(dataDir, 'metering')).some((name) => name.endsWith('.jsonl')),
      'the charge was journaled',
    )

    const restarted = await startTestGateway(t, { dataDir })
    await restarted.gateway.close()
    const after = await inspect(dataDir, (view) => ({ entries: view.entries, row: view.budget(made.projectId, view.entries[0]?.month ?? '') }))
    t.equal(after.entries.length, 1, 'the ledger holds the answered request, once')
    t.equal(after.entries[0]!.costMicros, Math.round(charged * 1e6), 'at the charge the client was told')
    t.equal(after.row.usedMicros, after.entries[0]!.costMicros, 'the budget was charged exactly once')
    t.same(
      readdirSync(join(dataDir, 'metering')).filter((name) => name.endsWith('.jsonl')),
      [],
      'the replayed journal is gone',
    )
  })
}
