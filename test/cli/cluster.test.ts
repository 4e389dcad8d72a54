// `tollgate serve --workers 2`: two processes share the port and the store, and a key's limit
// holds across them instead of doubling; /metrics on either answers for both.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { get } from 'node:http'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../helpers/start-gateway.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

t.test('two workers sharing one store let through no more than the key\'s burst', async (t) => {
  const dataDir = freshDataDir(t)
  // Free plan, development key: burst 2.
  const seeded = await seedProject(dataDir, { plan: 'free' }, [{ type: 'sk', env: 'dev' }])
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
  const urls: string[] = []
  let output = ''
  child.stdout.setEncoding('utf8')
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk
      for (const match of output.matchAll(/listening on (http:\/\/\S+)/g)) if (!urls.includes(match[1]!)) urls.push(match[1]!)
      if (urls.length >= 1 && (output.match(/listening on/g) ?? []).length >= 2) resolve()
    })
  })
  const url = urls[0]!
  const key = seeded.keys[0]!.key
  const statuses: number[] = []
  // A fresh connection each time, so the primary hands the requests to both workers in turn.
  const freshConnection = () => new Promise<number>((resolve, reject) => {
    get(`${url}/api/health`, { agent: false, headers: { 'x-api-key': key } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    }).on('error', reject)
  })
  for (let i = 0; i < 8; i++) statuses.push(await freshConnection())
  t.equal(statuses.filter((s) => s === 200).length, 2, 'the burst of 2 holds across both workers')
  t.equal(statuses.filter((s) => s === 429).length, 6)
  const metrics = await call(`${url}/metrics`)
  t.match(metrics.body, /tollgate_requests_total\{route="health",status_class="4xx",reason="rate_limited"\} 6/, 'metrics add up both workers')
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0, 'SIGTERM stops every worker and the primary cleanly')
})
