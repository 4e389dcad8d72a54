// `tollgate serve --workers 2`: two processes share the port and the store, and a key's limit
// and the account routes' attempt limits hold across them instead of doubling; /metrics on
// either answers for both (cluster-metrics.test.ts: at once while a worker is still starting, and
// in spite of a stuck one).
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../helpers/start-gateway.ts'
import { freshConnection } from '../helpers/spawn-cluster.ts'

// A cluster of two workers starts and stops in each test: on a loaded 2-core
// machine the whole file can pass tap's 120 s per file.
t.setTimeout(300_000)

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

/** Resolves once both workers listen. */
async function startCluster(t: Test, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--workers', '2', '--data', dataDir], {
    env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, PORT: '0', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  })
  let output = ''
  child.stdout!.setEncoding('utf8')
  const url = await new Promise<string>((resolve) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk
      const listening = [...output.matchAll(/listening on (http:\/\/\S+)/g)]
      if (listening.length >= 2) resolve(listening[0]![1]!)
    })
  })
  return { child, url }
}

t.test("two workers sharing one store let through no more than the key's burst", async (t) => {
  const dataDir = freshDataDir(t)
  // Free plan, development key: burst 2.
  const seeded = await seedProject(dataDir, { plan: 'free' }, [{ type: 'sk', env: 'dev' }])
  const { child, url } = await startCluster(t, dataDir)
  const key = seeded.keys[0]!.key
  const statuses: number[] = []
  for (let i = 0; i < 8; i++) statuses.push(await freshConnection(`${url}/api/health`, { 'x-api-key': key }))
  t.equal(statuses.filter((s) => s === 200).length, 2, 'the burst of 2 holds across both workers')
  t.equal(statuses.filter((s) => s === 429).length, 6)
  const metrics = await call(`${url}/metrics`)
  t.match(metrics.body, /tollgate_requests_total\{route="health",status_class="4xx",reason="rate_limited"\} 6/, 'metrics add up both workers')
  t.match(metrics.body, /^tollgate_provider_simulated\{provider="openai"\} 1$/m, 'a configuration gauge is not summed over the workers')
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0, 'SIGTERM stops every worker and the primary cleanly')
})

t.test('two workers sharing one store allow 5 login attempts a minute for an address in total, not 5 each', async (t) => {
  const { url } = await startCluster(t, freshDataDir(t))
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) {
    statuses.push(await freshConnection(`${url}/api/auth/login`, {}, { email: 'target@example.com', password: `guess-${i}` }))
  }
  t.same(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429])
  const metrics = await call(`${url}/metrics`)
  t.match(
    metrics.body,
    /tollgate_requests_total\{route="auth_login",status_class="4xx",reason="client_error"\} 5/,
    "the cluster's metrics count the five attempts answered",
  )
})
