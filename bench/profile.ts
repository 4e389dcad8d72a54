// npm run bench:profile [-- --row json-miss] [-- --seconds 20] [-- --top 15]
//
// Where the gateway's CPU goes under one row's load: starts the mock and the gateway (under
// `node --cpu-prof`, pinned like `npm run bench`), drives the row for --seconds after a warm-up,
// stops the gateway gracefully so it writes its profile, and prints the costliest source files
// and functions by self time and by inclusive time. The profile stays on disk for a closer look
// (Chrome DevTools, speedscope).
//
// --row        json-miss (default), json-no-store, json-core (the proxy core and the router alone),
//              json-hit, chat-miss, chat-paced (a chunk every 10 ms, as a fast model streams: the
//              cost of each chunk), governed, json-miss-shared (json-miss with the records in
//              PostgreSQL and Redis; their own CPU is not profiled)
// --seconds    measured load (default 20), after a 3 s warm-up that is profiled too
// --top        lines per table (default 15)
// --interval   sampling interval in µs (default 250)
// --out DIR    where the profiles go (default a new temporary directory)
// --pin        auto (default) or off
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { pinOption, runCommand, UsageError } from './command-line.ts'
import { costsOf, top, type Cost, type CpuProfile, type TimeWindow } from './cpu-profile.ts'
import { governorCompleteBody } from './governor-payload.ts'
import { runLoad } from './load.ts'
import { COMPLETE_BODY, completeHeaders, type CacheControl } from './payload.ts'
import { pinLoadGenerator } from './pinning.ts'
import type { LoadRequest } from './probe.ts'
import { Fleet } from './processes.ts'
import { LaneServers, type GatewayKind, type GatewayServer, type GatewayStores } from './servers.ts'
import { runStreamLoad } from './stream-load.ts'
import type { MockSpec } from './targets/mock-upstream.ts'
import { routerSchema } from '../plugins/router/schema.ts'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const WARMUP_SECONDS = 3
const CONNECTIONS = 50

interface ProfiledRow {
  readonly gateway: GatewayKind
  /** The gateway's records: LMDB when not given. */
  readonly stores?: GatewayStores
  readonly stream: boolean
  /** The mock's pace; answers at once, 8 events back to back, when not given. */
  readonly mock?: MockSpec
  request(gateway: GatewayServer): LoadRequest
}

const complete =
  (cacheControl?: CacheControl, body = COMPLETE_BODY) =>
  (g: GatewayServer): LoadRequest => ({
    url: `${g.url}/api/ai/complete`,
    method: 'POST',
    headers: completeHeaders(g.key, cacheControl === undefined ? {} : { cacheControl }),
    body,
  })

const chat = (g: GatewayServer): LoadRequest => ({ ...complete('no-cache')(g), url: `${g.url}/api/ai/chat` })

const ROWS: Readonly<Record<string, ProfiledRow>> = {
  'json-miss': { gateway: 'plain', stream: false, request: complete('no-cache') },
  'json-no-store': { gateway: 'plain', stream: false, request: complete('no-store') },
  'json-core': { gateway: 'core only', stream: false, request: complete() },
  'json-hit': { gateway: 'plain', stream: false, request: complete() },
  'chat-miss': { gateway: 'plain', stream: true, request: chat },
  'chat-paced': { gateway: 'plain', stream: true, mock: { latencyMs: 0, chunks: 40, chunkDelayMs: 10 }, request: chat },
  governed: { gateway: 'governed', stream: false, request: complete('no-cache', governorCompleteBody(1024, { withMetadata: true })) },
  'json-miss-shared': { gateway: 'plain', stores: 'shared', stream: false, request: complete('no-cache') },
}

function costTable(title: string, costs: readonly Cost[], busyMs: number): string {
  const pct = (ms: number) => `${((100 * ms) / busyMs).toFixed(1)}%`
  const lines = costs.map((c) => [c.selfMs.toFixed(0), pct(c.selfMs), c.totalMs.toFixed(0), pct(c.totalMs), c.name])
  const head = ['self ms', 'self', 'incl ms', 'incl', 'where']
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (l: readonly string[]) => l.map((cell, i) => (i === l.length - 1 ? cell : cell.padStart(widths[i]!))).join('  ')
  return [title, fmt(head), ...lines.map(fmt)].join('\n')
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      row: { type: 'string', default: 'json-miss' },
      seconds: { type: 'string', default: '20' },
      top: { type: 'string', default: '15' },
      interval: { type: 'string', default: '250' },
      out: { type: 'string' },
      pin: { type: 'string', default: 'auto' },
    },
  })
  const row = ROWS[values.row]
  if (row === undefined) throw new UsageError(`--row must be one of ${Object.keys(ROWS).join(', ')}, got "${values.row}"`)
  const seconds = Number(values.seconds)
  const count = Number(values.top)
  const interval = Number(values.interval)
  if (!(seconds > 0) || !(count > 0) || !(interval > 0)) throw new UsageError('--seconds, --top and --interval must be positive numbers')
  const dir = values.out === undefined ? mkdtempSync(join(tmpdir(), 'tollgate-profile-')) : resolve(values.out)

  const pinning = pinLoadGenerator(pinOption(values.pin))
  const fleet = new Fleet(pinning.serverCpu)
  process.once('exit', () => fleet.killAllNow())
  const servers = new LaneServers(
    fleet,
    'profile',
    { mock: row.mock ?? { latencyMs: 0, chunks: 8, chunkDelayMs: 0 }, upstreamConnections: routerSchema.parse({}).connections },
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${interval}`],
  )
  let achieved: string
  let window: TimeWindow
  const nowUs = () => Number(process.hrtime.bigint() / 1000n)
  try {
    const gateway = await servers.gateway(row.gateway, row.stores)
    const load = row.request(gateway)
    process.stderr.write(
      `profile: ${values.row} against ${load.url}, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${seconds} s; pinning: ${pinning.description}\n`,
    )
    if (row.stream) {
      const fromUs = nowUs() + WARMUP_SECONDS * 1e6
      const m = await runStreamLoad(
        { load, endMarker: 'event: done' },
        { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, durationSeconds: seconds, stallMs: 1000, drainMs: 5000 },
      )
      window = { fromUs, toUs: fromUs + seconds * 1e6 }
      achieved = `${m.streamsPerSecond.toFixed(0)} streams/s, ${m.failed} failed`
    } else {
      await runLoad(load, { connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS })
      const fromUs = nowUs()
      const m = await runLoad(load, { connections: CONNECTIONS, durationSeconds: seconds })
      window = { fromUs, toUs: nowUs() }
      achieved = `${m.requestsPerSecond.toFixed(0)} req/s, ${m.failed} failed`
    }
  } finally {
    // A graceful stop: the gateway writes its profile as it exits.
    await servers.stop()
    await fleet.stopAll()
  }

  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
  if (files.length === 0) throw new Error(`no profile was written to ${dir}`)
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread, the others are workers.
  const threadOf = (file: string) => Number(file.split('.').at(-3))
  const out = [`${values.row}: ${achieved} over ${seconds} s; profiles in ${dir}; only the samples of the measured ${seconds} s count`]
  for (const file of files) {
    const costs = costsOf(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, ROOT, window)
    if (threadOf(file) !== 0) {
      const busiest = top(costs.byFunction, 'selfMs', 3)
        .filter((c) => c.selfMs >= 1)
        .map((c) => `${c.name} ${c.selfMs.toFixed(0)} ms`)
        .join(', ')
      out.push(
        '',
        `worker thread ${threadOf(file)} (${file}): ${costs.busyMs.toFixed(0)} ms busy of ${costs.sampledMs.toFixed(0)} ms${busiest === '' ? '' : `; most self time: ${busiest}`}`,
      )
      continue
    }
    out.push(
      '',
      `main thread (${file}): ${costs.busyMs.toFixed(0)} ms busy of ${costs.sampledMs.toFixed(0)} ms sampled; percentages are of busy time`,
      '',
      costTable(`Top ${count} files by self time:`, top(costs.byFile, 'selfMs', count), costs.busyMs),
      '',
      costTable(`Top ${count} files by inclusive time:`, top(costs.byFile, 'totalMs', count), costs.busyMs),
      '',
      costTable(`Top ${count} functions by self time:`, top(costs.byFunction, 'selfMs', count), costs.busyMs),
      '',
      costTable(`Top ${count} functions by inclusive time:`, top(costs.byFunction, 'totalMs', count), costs.busyMs),
    )
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

runCommand('bench:profile', main)
