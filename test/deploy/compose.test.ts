// The shipped deploy/compose.yaml and deploy/nginx.conf. No container runs here, so each gateway
// service's command and environment run as a process (its servers' addresses swapped for the
// test's PostgreSQL and Redis), and nginx runs the shipped config with the gateways' addresses
// swapped for their ports: requests spread over the three, a stream comes through whole, and a
// gateway killed outright costs no request.
import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { call, hello, parseSse } from '../helpers/http.ts'
import { freePort } from '../../bench/free-port.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { REDIS_MISSING, startRedis } from '../helpers/redis-server.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'
import { until } from '../helpers/until.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const CONF = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url))
const COMPOSE = fileURLToPath(new URL('../../deploy/compose.yaml', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const NGINX_MISSING = spawnSync('nginx', ['-v']).error === undefined ? false : 'nginx is not installed (Debian package nginx-light; .ci/run installs it)'

interface ComposeService {
  readonly image: string
  readonly command?: readonly string[]
  readonly environment?: Readonly<Record<string, string>>
  readonly volumes?: readonly string[]
  readonly networks?: Readonly<Record<string, { readonly ipv4_address?: string }>>
}

/** deploy/compose.yaml's gateways, each as the command and environment its container would run. */
function composeGateways(t: Test, databaseUrl: string, redisUrl: string) {
  const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> }
  const { services } = compose
  t.ok(services.postgres?.image.startsWith('postgres:') === true && services.redis?.image.startsWith('redis:') === true, 'PostgreSQL and Redis services')
  t.same(services.nginx?.volumes, ['./nginx.conf:/etc/nginx/nginx.conf:ro'], 'nginx runs deploy/nginx.conf as shipped')
  return Object.entries(services)
    .filter(([name]) => name.startsWith('gateway'))
    .map(([name, service]) => {
      const env = service.environment ?? {}
      t.same(service.volumes, ['..:/app:ro'], `${name} runs the checkout`)
      t.equal(env.TOLLGATE_SECRET?.startsWith('${TOLLGATE_SECRET:?'), true, `${name} requires the secret from the operator`)
      t.match(env.DATABASE_URL, /@postgres:5432\//, `${name} uses the postgres service`)
      t.equal(env.REDIS_URL, 'redis://redis:6379', `${name} uses the redis service`)
      const [program, ...args] = service.command ?? []
      t.equal(program, 'node')
      const data = args.indexOf('--data') + 1
      t.ok(data > 0, `${name} keeps its local data in a directory of its own`)
      return {
        address: `${service.networks?.default?.ipv4_address}:${env.PORT}`,
        args: args.map((arg, i) => (i === data ? freshDataDir(t) : arg)),
        env: {
          ...process.env,
          ...env,
          TOLLGATE_SECRET: TEST_SECRET,
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'silent',
          LOCAL_CHUNK_DELAY_MS: '0',
        },
      }
    })
}

t.test('deploy/compose.yaml: three gateways behind deploy/nginx.conf', { skip: POSTGRES_MISSING || REDIS_MISSING || NGINX_MISSING }, async (t) => {
  const postgres = await startPostgres(t)
  const redis = await startRedis(t)
  const gateways = composeGateways(t, await postgres.freshDatabase(t), redis.url)
  t.equal(gateways.length, 3, 'three gateways')
  const hosts = await Promise.all(gateways.map((g) => spawnGateway(t, g.args, g.env, ROOT)))
  const env = gateways[0]!.env

  const port = await freePort()
  const shipped = readFileSync(CONF, 'utf8')
  const upstreams = [...shipped.matchAll(/^\s*server (\S+) /gm)].map((m) => m[1])
  t.same(
    upstreams,
    gateways.map((g) => g.address),
    "nginx names the compose file's three gateways",
  )
  const conf = shipped
    .replace(/server (\S+) /g, (_, address: string) => `server ${new URL(hosts[upstreams.indexOf(address)]!.url).host} `)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`)
    .replace('worker_processes auto;', 'worker_processes 1;')
  const prefix = freshDataDir(t)
  mkdirSync(join(prefix, 'logs'))
  writeFileSync(join(prefix, 'nginx.conf'), conf)
  const nginx = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  t.teardown(async () => {
    nginx.kill('SIGQUIT')
    if (nginx.exitCode === null) await once(nginx, 'exit')
  })
  const base = `http://127.0.0.1:${port}`
  await until(async () => (await call(`${base}/healthz`).catch(() => ({ status: 0 }))).status === 200, 'nginx to answer /healthz', 30_000)

  const project = JSON.parse(
    (await run(process.execPath, [CLI, 'projects', 'create', '--name', 'lb', '--plan', 'enterprise', '--budget', '100', '--json'], { env })).stdout,
  )
  const { key } = JSON.parse(
    (await run(process.execPath, [CLI, 'keys', 'create', '--project', project.id, '--type', 'sk', '--env', 'prod', '--name', 'lb', '--json'], { env })).stdout,
  )

  const served = async () =>
    Promise.all(
      hosts.map(async (host) => {
        const text = String((await call(`${host.url}/metrics`)).body)
        return [...text.matchAll(/^tollgate_requests_total\{[^}]*route="ai_complete"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
      }),
    )
  for (let i = 0; i < 30; i++) t.equal((await call(`${base}/api/ai/complete`, { key, body: hello, headers: { 'cache-control': 'no-store' } })).status, 200)
  const counts = await served()
  t.ok(
    counts.every((n) => n > 0),
    `every gateway served some (${counts.join(', ')})`,
  )

  const stream = await call(`${base}/api/ai/chat`, { key, body: hello })
  t.equal(stream.status, 200)
  t.equal(parseSse(String(stream.body)).at(-1)?.event, 'done', 'a stream comes through to its done event')

  hosts[0]!.child.kill('SIGKILL')
  await once(hosts[0]!.child, 'exit')
  const after = await Promise.all(
    Array.from({ length: 12 }, () => call(`${base}/api/ai/complete`, { key, body: hello, headers: { 'cache-control': 'no-store' } })),
  )
  t.same(
    after.map((a) => a.status),
    Array(12).fill(200),
    'a dead gateway is skipped: every request is answered',
  )
})
