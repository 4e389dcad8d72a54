// SIGTERM stops the gateway gracefully: /readyz says draining at once, requests that arrive on
// kept-alive sockets after the signal get 503 with retry-after and never reach a model, requests
// in flight finish, a stream still open at the deadline ends with an `error` event and is
// metered, and the process exits 0 within the grace. `npm start` hands the signal to the gateway.
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, Pool, request, type Dispatcher } from 'undici'
import { parseSse } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../helpers/start-gateway.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'
import { until } from '../helpers/until.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CLI = join(ROOT, 'cli/tollgate.ts')
const GRACE_MS = 4000

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

async function send(dispatcher: Dispatcher, path: string, key?: string, body?: unknown): Promise<Answer | Error> {
  try {
    const res = await dispatcher.request({
      path,
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(key === undefined ? {} : { 'x-api-key': key }), 'content-type': 'application/json', 'cache-control': 'no-store' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() }
  } catch (err) {
    return err as Error
  }
}

const question = (n: number) => ({ messages: [{ role: 'user', content: `question ${n}` }] })

t.test('SIGTERM under keep-alive load drains the gateway and exits 0 within the grace', async (t) => {
  const mock = await startMockUpstream({ slowStreamMs: 100 })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const configFile = join(dataDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ shutdownGraceMs: GRACE_MS }))
  const seeded = await seedProject(dataDir, { budgetDollars: 1000 })
  const key = seeded.keys[0]!.key
  const { child, url } = await spawnGateway(t, [CLI, 'serve', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
    TOLLGATE_CONFIG: configFile,
  })

  // Eight kept-alive connections, idle when the signal comes; one for the probe; one per request in flight.
  const pool = new Pool(url, { connections: 8 })
  const probe = new Client(url)
  const inFlight = Array.from({ length: 4 }, () => new Client(url))
  t.teardown(() => Promise.all([pool, probe, ...inFlight].map((d) => d.destroy())))
  const warm = await Promise.all(Array.from({ length: 16 }, (_, i) => send(pool, '/api/ai/complete', key, question(i))))
  t.same(
    warm.map((a) => (a instanceof Error ? a.message : a.status)),
    Array(16).fill(200),
    'the load is served before the signal',
  )
  t.equal(((await send(probe, '/readyz')) as Answer).status, 200, 'ready before the signal')

  // A stream that never ends by itself.
  mock.fail('slow-stream')
  const stream = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'a long story' }] }),
  })
  t.equal(stream.statusCode, 200)
  const streamId = String(stream.headers['x-request-id'])
  let streamed = ''
  const streamEnded = (async () => {
    for await (const chunk of stream.body) streamed += chunk.toString()
  })().then(
    () => 'ended',
    (err: Error) => `failed: ${err.message}`,
  )
  await until(() => streamed.includes('event: delta'), 'the first delta of the stream')

  // Four requests in flight: they reached the provider, which holds its answers.
  mock.hold()
  const held = inFlight.map((client, i) => send(client, '/api/ai/complete', key, question(100 + i)))
  await until(() => mock.held >= 4, 'four requests held by the provider')
  const upstreamCalls = mock.requests.length

  const signalAt = Date.now()
  child.kill('SIGTERM')
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, ms: Date.now() - signalAt }))

  let readiness = await send(probe, '/readyz')
  while (!(readiness instanceof Error) && readiness.status === 200 && Date.now() - signalAt < 2000) readiness = await send(probe, '/readyz')
  const drainingAfterMs = Date.now() - signalAt
  if (readiness instanceof Error) t.fail(`/readyz on its kept-alive connection failed: ${readiness.message}`)
  else {
    t.equal(readiness.status, 503, `/readyz answers 503 once the signal is taken (${drainingAfterMs} ms after it)`)
    t.same(JSON.parse(readiness.body), { status: 'draining' })
    t.equal(readiness.headers.connection, 'close')
  }

  // New work on the kept-alive connections.
  const late = await Promise.all(Array.from({ length: 8 }, (_, i) => send(pool, '/api/ai/complete', key, question(200 + i))))
  const refused = late.filter((a): a is Answer => !(a instanceof Error))
  t.same(
    refused.filter((a) => a.status !== 503),
    [],
    'no request that came after the signal is served',
  )
  t.ok(refused.length >= 1, `${refused.length} of 8 late requests were answered 503 on their kept-alive connection (the rest found it closed)`)
  for (const answer of refused) {
    t.equal(answer.headers['retry-after'], '1')
    t.equal(answer.headers.connection, 'close')
    t.equal(JSON.parse(answer.body).code, 'shutting_down')
  }
  t.equal(mock.requests.length, upstreamCalls, 'no late request reached the provider')

  mock.release()
  const finished = await Promise.all(held)
  t.same(
    finished.map((a) => (a instanceof Error ? a.message : a.status)),
    [200, 200, 200, 200],
    'the requests in flight finish',
  )
  for (const answer of finished) if (!(answer instanceof Error)) t.equal(answer.headers.connection, 'close', 'and close their connection')
  const afterThem = await Promise.all(inFlight.map((client, i) => send(client, '/api/ai/complete', key, question(300 + i))))
  t.same(
    afterThem.filter((a) => !(a instanceof Error) && a.status !== 503),
    [],
    'so the next request of their clients is not served either',
  )
  t.equal(mock.requests.length, upstreamCalls, 'nothing new reached the provider')

  t.equal(await streamEnded, 'ended', 'the open stream is ended by the gateway, not cut off')
  const events = parseSse(streamed)
  t.same(
    events.at(-1),
    { event: 'error', data: { error: 'Service unavailable', message: 'The gateway shut down before this request finished; retry it.', code: 'shutting_down' } },
    'with an error event last',
  )
  t.ok(events.filter((e) => e.event === 'delta').length >= 2)
  const { code, ms } = await exited
  t.equal(code, 0, 'the process exits 0')
  // The stream never ends by itself, so any exit soon after the grace shows it was cut; the slack
  // is for closing the stores and the pool on a busy machine.
  t.ok(ms < GRACE_MS + 3000, `it exited ${ms} ms after the signal (grace ${GRACE_MS} ms)`)
  t.ok(ms >= GRACE_MS - 1000, 'after giving the stream the grace')

  const store = openStore(dataDir)
  t.teardown(() => store.close())
  const entry = createLedger(store.forPlugin('metering')).entry(streamId)
  t.ok(entry !== undefined && entry.completionTokens > 0, `the cut stream is metered for what it streamed (${entry?.completionTokens} tokens)`)
})

/** The process ids under `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`
  if (!existsSync(file)) return []
  const children = readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...descendants(child)])
}

const commandOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0

t.test(
  'SIGTERM to npm start reaches the gateway: it drains, npm exits 0, nothing is left running',
  { skip: hasNpm ? false : 'needs npm (Debian package npm)' },
  async (t) => {
    const dataDir = freshDataDir(t)
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, TOLLGATE_DATA: dataDir, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let tree: number[] = []
    t.teardown(() => {
      for (const pid of [npm.pid!, ...tree]) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
    })
    let output = ''
    npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    await until(
      () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited early: ${output}`)
        return /listening on http/.test(output)
      },
      'npm start to listen',
      60_000,
    )
    tree = descendants(npm.pid!)
    t.equal(tree.length, 1, 'npm start runs one process')
    t.match(commandOf(tree[0]!), /node cli\/tollgate\.ts serve$/, 'the gateway itself, not a shell around it')
    npm.kill('SIGTERM')
    const [code] = await once(npm, 'exit')
    t.equal(code, 0, 'npm exits 0')
    t.match(output, /"msg":"shutting down"[\s\S]*"msg":"tollgate stopped"/, 'the gateway drained and stopped')
    t.same(tree.filter(isRunning), [], 'no orphan')
  },
)

t.test(
  'npx tollgate serve: a gateway that npm left behind stops by itself instead of serving as an orphan',
  { skip: hasNpm ? false : 'needs npm (Debian package npm)' },
  async (t) => {
    const dataDir = freshDataDir(t)
    const npx = spawn('npx', ['tollgate', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, TOLLGATE_DATA: dataDir, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let tree: number[] = []
    t.teardown(() => {
      for (const pid of [npx.pid!, ...tree]) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
    })
    let output = ''
    npx.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    npx.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    await until(
      () => {
        if (npx.exitCode !== null) throw new Error(`npx exited early: ${output}`)
        return /listening on http/.test(output)
      },
      'npx tollgate serve to listen',
      60_000,
    )
    tree = descendants(npx.pid!)
    const gateway = tree.find((pid) => /tollgate serve$/.test(commandOf(pid)))
    t.ok(gateway !== undefined, 'the gateway runs under npx')
    npx.kill('SIGTERM')
    await once(npx, 'exit')
    const deadline = Date.now() + 5000
    while (tree.some(isRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    t.same(tree.filter(isRunning), [], 'nothing is left running')
    t.match(output, /tollgate: npm exited without passing its signal on; stopping[\s\S]*"msg":"tollgate stopped"/, 'the gateway drained and stopped')
  },
)
