// `tollgate serve --workers 2`: two processes share the port and the store, and a key's limit
// and the account routes' attempt limits hold across them instead of doubling; /metrics on
// either answers for both, at once while a worker is still starting, and in spite of a stuck one.
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../helpers/start-gateway.ts'
import { launchPrimary, urlOf } from '../helpers/spawn-cluster.ts'

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

/** A fresh connection each time, so the primary hands the requests to both workers in turn. */
function freshConnection(url: string, headers: Record<string, string>, body?: unknown): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    }).on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

t.test('two workers sharing one store let through no more than the key\'s burst', async (t) => {
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
  t.match(metrics.body, /tollgate_requests_total\{route="auth_login",status_class="4xx",reason="client_error"\} 5/, 'the cluster\'s metrics count the five attempts answered')
})

/** GET /metrics on a fresh connection: its status, body and time taken. */
function scrape(url: string, signal?: AbortSignal): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    request(`${url}/metrics`, { agent: false, ...(signal === undefined ? {} : { signal }) }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }))
    }).on('error', reject).end()
  })
}

t.test('a fresh cluster answers its first scrape at once, while its second worker is still starting', async (t) => {
  const primary = launchPrimary(t, 2)
  await primary.until(/listening on/)
  const url = urlOf(primary.output())
  const first = await scrape(url)
  t.equal(first.status, 200, 'the first scrape is answered by the worker that serves')
  t.ok(first.ms < 3000, `promptly (${Math.round(first.ms)} ms), not after a wait for the worker still starting`)
  t.match(first.body, /^tollgate_provider_simulated\{provider="openai"\} 1$/m)
  await primary.until(/listening on/, 2)
  for (let i = 0; i < 3; i++) {
    const next = await scrape(url)
    t.equal(next.status, 200)
    t.ok(next.ms < 3000, `scrape ${i + 2} with both workers up in ${Math.round(next.ms)} ms`)
  }
})

t.test('a worker that cannot answer delays a scrape but does not fail it: the cluster answers with the figures it gave last', async (t) => {
  const primary = launchPrimary(t, 2)
  await primary.until(/listening on/, 2)
  const url = urlOf(primary.output())
  for (let i = 0; i < 4; i++) t.equal(await freshConnection(`${url}/api/health`, {}), 401)
  t.equal((await scrape(url)).status, 200, 'both workers give their figures once')
  const [stopped] = primary.workers()
  process.kill(stopped!, 'SIGSTOP')
  // The primary hands a stopped worker one connection, which then waits; the others are answered.
  const abort = new AbortController()
  t.teardown(() => abort.abort())
  const scrapes = [0, 1, 2].map(() => scrape(url, abort.signal))
  for (const pending of scrapes) pending.catch(() => undefined)
  const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no scrape answered within 15 s')), 15_000).unref())
  const answer = await Promise.race([Promise.any(scrapes), deadline])
  t.equal(answer.status, 200, 'answered, not 500')
  t.match(answer.body, /^tollgate_requests_total\{route="health",status_class="4xx",reason="[^"]+"\} 4$/m, 'the stopped worker\'s requests are still counted')
  t.match(primary.output(), new RegExp(`worker ${stopped} gave no metrics within \\d+ ms`), 'the primary says which worker was silent')
})
