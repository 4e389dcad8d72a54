// What strict mode adds to a governed stream's first byte: one gateway in front of one mock
// provider, with two projects, strict mode off and on, loaded with 50 concurrent streams. The mock
// streams a prose answer (no sensitive data) one word per chunk, back to back and paced like a fast
// model. It prints p50/p99 of the time to the first delta (the first text the client gets) for
// both, the difference, and, from the gateway's metrics, how long each scan of streamed text held
// the event loop. Every process runs on its own, the load generator in this one. Where taskset
// exists, the gateway runs on the last CPU and the load generator and the mock on CPU 0, so the
// gateway under load has a core to itself and its p99 is not another process's time slice.
//
//   npm run bench:governor-stream   (BENCH_DURATION=S seconds per round, default 8; BENCH_ROUNDS=N
//                                    rounds of each, default 2: a p99 needs many streams to settle;
//                                    BENCH_WARMUP=S seconds of load first, default 10)
//
// Each round measures strict mode two ways. One project at a time: 50 streams with strict mode
// off, then 50 with it on; this shows what strict mode's CPU does to a gateway where every stream
// is strict, but the two halves see the machine at different moments, and on a shared VM a
// round's p99 moves by several times with nothing changed. Both at once: every client alternates
// between the two projects, so at any moment about half the streams are strict, and both halves
// meet the same stalls; the difference of their p99s is what strict mode adds to a stream, with
// the machine's drift taken out (its extra CPU then weighs on both halves alike). A p99 of one
// round rests on its few slowest streams, so each round's p99 is printed beside the pooled one,
// with what each round added and the median of those.
//
// The clients start one after another, spread over one answer's length, as independent users
// would. Started together, 50 closed-loop clients whose answers take equally long stay in step,
// and every stream then begins in a burst of 50: the first delta's p50 at 10 ms pacing was 23–29 ms
// measured that way and 5–7 ms spread, so the burst, not the gateway, made most of the figure.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { pinLoadGenerator, pinnedCommand } from './pinning.ts'
import { median } from './stats.ts'
import { createRegistry, loadSecret } from '../plugins/auth/store/lmdb.ts'
import { systemClock } from '../proxy/kit/clock.ts'
import { start } from '../proxy/index.ts'
import { openStore } from '../proxy/stores/store.ts'

const CONCURRENCY = 50
/**
 * Load per gateway before the rounds: most scans that held the loop over 2 ms (up to 20 ms for
 * 64–200 characters) came in a fresh process's first ~10 s under this load, and would land in the
 * first rounds. The detectors' warm-up at start halved them; what holds the rest is not pinned down.
 */
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 10)
const ROUND_S = Number(process.env.BENCH_DURATION ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const SECRET = 'bench-secret-of-at-least-thirty-two-characters'
const UPSTREAM_KEY = 'sk-bench-upstream'
/** Pacing of the mock's chunks: back to back, and one word every 10 ms (a fast model). */
const PACINGS = [0, 10] as const
const ANSWER_WORDS = (
  'Thank you for your message. The replacement copy will be shipped today by standard post, and it ' +
  'usually arrives within three to five working days. You do not need to return the damaged book; ' +
  'please keep it or pass it on. If the new copy is not with you by next Friday, reply to this message and we will look into it.'
).split(' ')
const PIECES = ANSWER_WORDS.map((word, i) => (i === 0 ? word : ` ${word}`))

type Strict = 'off' | 'on'

interface ChildInfo {
  readonly url: string
  /** The gateway's keys: one per project, strict mode off and on. */
  readonly keys?: Readonly<Record<Strict, string>>
}

// ── children ───────────────────────────────────────────────────────────────────────────────────

async function runMock(gapMs: number): Promise<ChildInfo> {
  const usage = { prompt_tokens: 60, completion_tokens: PIECES.length, total_tokens: 60 + PIECES.length }
  const chunk = (body: object) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', ...body })}\n\n`
  async function stream(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const [i, piece] of PIECES.entries()) {
      if (i > 0 && gapMs > 0) await sleep(gapMs)
      if (res.destroyed) return
      res.write(chunk({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }], usage: null }))
    }
    res.write(chunk({ choices: [], usage }))
    res.end('data: [DONE]\n\n')
  }
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => void stream(res))
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function runGateway(upstreamUrl: string): Promise<ChildInfo> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-stream-'))
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))
  const store = openStore(dataDir)
  const keys: Partial<Record<Strict, string>> = {}
  try {
    const auth = store.forPlugin('auth')
    const registry = createRegistry(auth, await loadSecret(auth, SECRET), systemClock)
    for (const strict of ['off', 'on'] as const) {
      const project = await registry.createProject({ name: `bench strict ${strict}`, plan: 'enterprise', budgetDollars: 1e9 })
      await registry.updateProject(project.id, { governor: { strictMode: strict === 'on' } })
      keys[strict] = (await registry.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'bench' })).key
    }
  } finally {
    await store.close()
  }
  const gateway = await start({
    env: { OPENAI_BASE_URL: upstreamUrl, OPENAI_API_KEY: UPSTREAM_KEY, LOG_LEVEL: 'warn' },
    overrides: { host: '127.0.0.1', port: 0, dataDir, shutdownGraceMs: 2000, plugins: { auth: { secret: SECRET, demoOnFirstStart: false } } },
  })
  process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)))
  return { url: gateway.url, keys: keys as Record<Strict, string> }
}

// ── parent ─────────────────────────────────────────────────────────────────────────────────────

const SELF = fileURLToPath(import.meta.url)
/** How a child's line announcing its address begins; the gateway's own log lines go to stdout too. */
const READY = 'ready '

async function child(args: readonly string[], cpu: number | undefined): Promise<{ process: ChildProcess; info: ChildInfo }> {
  const [command, ...rest] = pinnedCommand([process.execPath, SELF, '--child', ...args], cpu)
  const proc = spawn(command!, rest, { stdio: ['ignore', 'pipe', 'inherit'] })
  proc.stdout!.setEncoding('utf8')
  let output = ''
  const info = await new Promise<ChildInfo>((resolve, reject) => {
    proc.stdout!.on('data', (text: string) => {
      output += text
      const line = output.split('\n').find((l) => l.startsWith(READY))
      if (line !== undefined) resolve(JSON.parse(line.slice(READY.length)) as ChildInfo)
    })
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready`)))
  })
  return { process: proc, info }
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return
  proc.kill('SIGTERM')
  await once(proc, 'exit')
}

const BODY = JSON.stringify({
  messages: [{ role: 'user', content: 'My order arrived with one cover torn. Can I get a replacement, and how long would it take to ship?' }],
  model: 'gpt-4o-mini',
  governorMetadata: { actionType: 'customer_support', senderId: 'agent-7' },
})

/**
 * Milliseconds from sending the request to the first delta event, for every stream finished in
 * `seconds`, by project; the clients' first requests are spread evenly over `spreadMs`. Each
 * client takes the projects in turn, starting one further along than the client before it.
 */
async function load(gateway: ChildInfo, projects: readonly Strict[], seconds: number, spreadMs: number): Promise<Record<Strict, number[]>> {
  const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 60_000 })
  const headersOf = (strict: Strict) => ({ 'x-api-key': gateway.keys![strict], 'content-type': 'application/json', 'cache-control': 'no-store' })
  const firstDelta: Record<Strict, number[]> = { off: [], on: [] }
  const until = performance.now() + seconds * 1000
  async function client(_: unknown, i: number): Promise<void> {
    await sleep((i * spreadMs) / CONCURRENCY)
    for (let n = i; performance.now() < until; n++) {
      const strict = projects[n % projects.length]!
      const sent = performance.now()
      const res = await request(`${gateway.url}/api/ai/chat`, { method: 'POST', headers: headersOf(strict), body: BODY, dispatcher })
      let seen = ''
      let at: number | undefined
      for await (const part of res.body) {
        seen = (seen + (part as Buffer).toString('utf8')).slice(-1000)
        if (at === undefined && seen.includes('event: delta')) at = performance.now() - sent
      }
      if (res.statusCode !== 200 || at === undefined || !seen.includes('event: done'))
        throw new Error(`a stream failed (${res.statusCode}): ${seen.slice(-300)}`)
      firstDelta[strict].push(at)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, client))
  await dispatcher.close()
  return firstDelta
}

/** CPU seconds a process has used so far (Linux: /proc; 0 elsewhere). */
function cpuSeconds(proc: ChildProcess): number {
  try {
    const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** The gateway's histogram of stream scans: how many, and how many held the loop beyond 1 and 2 ms. */
async function streamScans(gateway: ChildInfo): Promise<{ count: number; over1ms: number; over2ms: number; meanUs: number }> {
  const text = await (await request(`${gateway.url}/metrics`)).body.text()
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
  const count = value(/^tollgate_governor_scan_seconds_count\{where="stream"\} (\S+)$/m)
  const sum = value(/^tollgate_governor_scan_seconds_sum\{where="stream"\} (\S+)$/m)
  return {
    count,
    over1ms: count - value(/^tollgate_governor_scan_seconds_bucket\{le="0.001",where="stream"\} (\S+)$/m),
    over2ms: count - value(/^tollgate_governor_scan_seconds_bucket\{le="0.002",where="stream"\} (\S+)$/m),
    meanUs: count === 0 ? 0 : (sum / count) * 1e6,
  }
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`

/** First-delta times of one way of measuring, by project, pooled and by round. */
class Measured {
  readonly pooled: Record<Strict, number[]> = { off: [], on: [] }
  readonly roundP99: Record<Strict, number[]> = { off: [], on: [] }

  add(firstDelta: Record<Strict, number[]>): void {
    for (const strict of ['off', 'on'] as const) {
      if (firstDelta[strict].length === 0) continue
      this.pooled[strict].push(...firstDelta[strict])
      this.roundP99[strict].push(
        percentile(
          firstDelta[strict].sort((a, b) => a - b),
          99,
        ),
      )
    }
  }

  /** The table's lines: each project, what strict mode added, and what it added round by round. */
  lines(label: string, cpuPerStream?: Record<Strict, number>): string[] {
    const summary = { off: { p50: 0, p99: 0 }, on: { p50: 0, p99: 0 } }
    const out: string[] = []
    for (const strict of ['off', 'on'] as const) {
      const sorted = this.pooled[strict].sort((a, b) => a - b)
      summary[strict] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
      const cpu = (cpuPerStream === undefined ? '–' : `${(cpuPerStream[strict] * 1e6).toFixed(0)} µs`).padEnd(22)
      const byRound = this.roundP99[strict].map((ms) => ms.toFixed(1)).join(', ')
      out.push(
        `${(strict === 'off' ? label : '').padEnd(18)} ${strict.padEnd(7)} ${String(sorted.length).padStart(7)}  ${fmt(summary[strict].p50).padStart(15)}  ${fmt(summary[strict].p99).padEnd(10)} ${cpu} ${byRound}`,
      )
    }
    out.push(`${''.padEnd(18)} added   ${''.padStart(7)}  ${fmt(summary.on.p50 - summary.off.p50).padStart(15)}  ${fmt(summary.on.p99 - summary.off.p99)}`)
    const addedByRound = this.roundP99.on.map((ms, round) => ms - this.roundP99.off[round]!)
    out.push(`${''.padEnd(18)} added p99 by round: ${addedByRound.map((ms) => ms.toFixed(1)).join(', ')} ms (median ${fmt(median(addedByRound))})`)
    return out
  }
}

async function main(): Promise<void> {
  const pinning = pinLoadGenerator('auto')
  // The mock shares the load generator's CPU: it is the gateway's cost that is measured.
  const mockCpu = pinning.serverCpu === undefined ? undefined : 0
  console.log(
    `governed chat streams, ${CONCURRENCY} concurrent, ${PIECES.length} chunks per answer, ${ROUNDS} rounds, each of ${ROUND_S} s with strict mode off, ${ROUND_S} s on, then ${2 * ROUND_S} s with both at once`,
  )
  console.log(
    `pinning: ${pinning.serverCpu === undefined ? pinning.description : `the gateway on CPU ${pinning.serverCpu}, the load generator and the mock on CPU 0`}`,
  )
  for (const gapMs of PACINGS) {
    const pacing = gapMs === 0 ? 'back to back' : `${gapMs} ms per chunk`
    const mock = await child(['mock', String(gapMs)], mockCpu)
    const gateway = await child(['gateway', mock.info.url], pinning.serverCpu)
    try {
      const spreadMs = gapMs * PIECES.length
      const apart = new Measured()
      const together = new Measured()
      const cpu = { off: 0, on: 0 }
      await load(gateway.info, ['off', 'on'], WARMUP_S, spreadMs)
      for (let round = 0; round < ROUNDS; round++) {
        for (const strict of ['off', 'on'] as const) {
          const before = cpuSeconds(gateway.process)
          const firstDelta = await load(gateway.info, [strict], ROUND_S, spreadMs)
          cpu[strict] += cpuSeconds(gateway.process) - before
          apart.add(firstDelta)
        }
        // Twice as long, so that each project gets about as many streams as in a round of its own.
        together.add(await load(gateway.info, ['off', 'on'], 2 * ROUND_S, spreadMs))
      }
      console.log(`\n${pacing}`)
      console.log('                   strict  streams  first delta p50  p99        gateway CPU per stream  p99 of each round (ms)')
      const perStream = { off: cpu.off / apart.pooled.off.length, on: cpu.on / apart.pooled.on.length }
      for (const line of [...apart.lines('one at a time', perStream), ...together.lines('both at once')]) console.log(line)
      const scans = await streamScans(gateway.info)
      console.log(
        `${''.padEnd(18)} stream scans on the event loop: ${scans.count}, mean ${scans.meanUs.toFixed(0)} µs, over 1 ms: ${scans.over1ms}, over 2 ms: ${scans.over2ms}`,
      )
    } finally {
      await stop(gateway.process)
      await stop(mock.process)
    }
  }
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  const info = args[1] === 'mock' ? await runMock(Number(args[2])) : await runGateway(args[2]!)
  if (args[1] === 'mock') process.on('SIGTERM', () => process.exit(0))
  process.stdout.write(`${READY}${JSON.stringify(info)}\n`)
} else {
  await main()
}
