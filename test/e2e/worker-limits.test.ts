// Rate limits across the processes of `tollgate serve --workers 2`, sharing one LMDB store: a key
// limited to 5 a minute gets 5 between both workers, never 6, and a key with a large limit takes
// a store commit per slice of requests, not per request (tollgate_store_commits_total).
import t from 'tap'
import { request } from 'node:http'
import { freshConnection, launchPrimary, urlOf } from '../helpers/spawn-cluster.ts'
import { freshDataDir, seedProject } from '../helpers/start-gateway.ts'

function commits(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(`${url}/metrics`, { agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve(Number(/^tollgate_store_commits_total\{store="lmdb"\} (\d+)/m.exec(body)?.[1] ?? Number.NaN)))
    })
      .on('error', reject)
      .end()
  })
}

t.test('two workers on one store', async (t) => {
  const dataDir = freshDataDir(t)
  // Enterprise is unlimited: each key's own rpm is its limit (and its burst).
  const { keys } = await seedProject(dataDir, { plan: 'enterprise' }, [
    { type: 'sk', env: 'prod', rpm: 5 },
    { type: 'sk', env: 'prod', rpm: 1_000_000 },
  ])
  const [small, large] = keys.map((key) => ({ 'x-api-key': key.key }))
  const primary = launchPrimary(t, 2, {}, dataDir)
  await primary.until(/listening on \S+\n/, 2)
  const url = `${urlOf(primary.output())}/api/health`

  t.test('a limit of 5: 5 of 40 concurrent requests pass between the two workers, never 6', async (t) => {
    const started = performance.now()
    const statuses = await Promise.all(Array.from({ length: 40 }, () => freshConnection(url, small!)))
    // 5 a minute refills one every 12 s: a slow machine may rightly let one more through.
    const refilled = Math.floor((performance.now() - started) / 12_000)
    const passed = statuses.filter((status) => status === 200).length
    t.ok(passed >= 5 && passed <= 5 + refilled, `${passed} passed`)
    t.equal(statuses.filter((status) => status === 429).length, 40 - passed, 'the others are refused')
  })

  t.test('a large limit: at most one commit per 20 requests', async (t) => {
    const before = await commits(urlOf(primary.output()))
    const requests = 400
    for (let i = 0; i < requests; i += 10) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => freshConnection(url, large!)))
      t.ok(statuses.every((status) => status === 200))
    }
    const taken = (await commits(urlOf(primary.output()))) - before
    t.ok(taken <= requests / 20, `${taken} commits for ${requests} requests`)
  })
})
