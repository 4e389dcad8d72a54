// The shipped deploy/nginx.conf in front of three gateway processes on one PostgreSQL and one
// Redis, its addresses swapped for the test's ports: requests spread over the three, a stream
// comes through whole, and a gateway killed outright costs no request.
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { call, hello, parseSse } from '../helpers/http.ts'
import { freePort } from '../../bench/free-port.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { REDIS_MISSING, startRedis } from '../helpers/redis-server.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const CONF = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url))
const NGINX_MISSING = spawnSync('nginx', ['-v']).error === undefined ? false : 'nginx is not installed (Debian package nginx-light; .ci/run installs it)'

t.test('deploy/nginx.conf in front of three gateways', { skip: POSTGRES_MISSING || REDIS_MISSING || NGINX_MISSING }, async (t) => {
  const postgres = await startPostgres(t)
  const redis = await startRedis(t)
  const env = {
    ...process.env, DATABASE_URL: await postgres.freshDatabase(t), REDIS_URL: redis.url, TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0', LOG_LEVEL: 'silent', LOCAL_CHUNK_DELAY_MS: '0',
  }
  const hosts = await Promise.all([1, 2, 3].map(() => spawnGateway(t, [CLI, 'serve', '--data', freshDataDir(t)], env)))

  const port = await freePort()
  const shipped = readFileSync(CONF, 'utf8')
  let address = 0
  const conf = shipped
    .replace(/server 10\.0\.0\.\d+:8080/g, () => `server ${new URL(hosts[address++]!.url).host}`)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`)
    .replace('worker_processes auto;', 'worker_processes 1;')
  t.equal(address, 3, 'the config names three gateways')
  const prefix = freshDataDir(t)
  mkdirSync(join(prefix, 'logs'))
  writeFileSync(join(prefix, 'nginx.conf'), conf)
  const nginx = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`], { stdio: ['ignore', 'ignore', 'pipe'] })
  t.teardown(async () => {
    nginx.kill('SIGQUIT')
    if (nginx.exitCode === null) await once(nginx, 'exit')
  })
  const base = `http://127.0.0.1:${port}`
  while ((await call(`${base}/healthz`).catch(() => ({ status: 0 }))).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20))

  const project = JSON.parse((await run(process.execPath, [CLI, 'projects', 'create', '--name', 'lb', '--plan', 'enterprise', '--budget', '100', '--json'], { env })).stdout)
  const { key } = JSON.parse((await run(process.execPath, [CLI, 'keys', 'create', '--project', project.id, '--type', 'sk', '--env', 'prod', '--name', 'lb', '--json'], { env })).stdout)

  const served = async () => Promise.all(hosts.map(async (host) => {
    const text = String((await call(`${host.url}/metrics`)).body)
    return [...text.matchAll(/^tollgate_requests_total\{[^}]*route="ai_complete"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
  }))
  for (let i = 0; i < 30; i++) t.equal((await call(`${base}/api/ai/complete`, { key, body: hello, headers: { 'cache-control': 'no-store' } })).status, 200)
  const counts = await served()
  t.ok(counts.every((n) => n > 0), `every gateway served some (${counts.join(', ')})`)

  const stream = await call(`${base}/api/ai/chat`, { key, body: hello })
  t.equal(stream.status, 200)
  t.equal(parseSse(String(stream.body)).at(-1)?.event, 'done', 'a stream comes through to its done event')

  hosts[0]!.child.kill('SIGKILL')
  await once(hosts[0]!.child, 'exit')
  const after = await Promise.all(Array.from({ length: 12 }, () => call(`${base}/api/ai/complete`, { key, body: hello, headers: { 'cache-control': 'no-store' } })))
  t.same(after.map((a) => a.status), Array(12).fill(200), 'a dead gateway is skipped: every request is answered')
})
