// Child entry: the gateway as an operator runs it, `tollgate serve --workers N`, on a fresh data
// directory seeded with the benchmark's project, every OpenAI model routed to the mock upstream,
// logging at warn. With N > 1 that is a node:cluster primary and N workers sharing the port and
// the LMDB store. Ready once every worker listens; the CPU it reports is the whole cluster's. The
// cluster gets SIGTERM when this process dies (setpriv's parent-death signal), and the directory
// is removed when it stops.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { z } from 'zod'
import type { rateLimitSchema } from '../../plugins/rate-limit/schema.ts'
import { UPSTREAM_API_KEY } from '../payload.ts'
import { treeCpuMicros } from '../process-tree.ts'
import { BENCH_SECRET, seedBenchProject } from '../seed.ts'
import type { GatewayInfo } from './gateway.ts'
import { runChild, specOf } from './lifecycle.ts'

export interface ServedGatewaySpec {
  readonly upstreamUrl: string
  /** Sockets per provider origin, per worker (the router's `connections`). */
  readonly upstreamConnections: number
  readonly workers: number
  /** Overrides of the rate-limit plugin's settings (its plan table); its defaults otherwise. */
  readonly rateLimit?: z.input<typeof rateLimitSchema>
}

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const READY_TIMEOUT_MS = 120_000
const LISTENING = /listening on (http:\/\/\S+)/g

/** Resolves with the URL once `workers` processes print that they listen; rejects if the cluster exits first. */
function listening(child: ChildProcess, workers: number): Promise<string> {
  let output = ''
  let ready = false
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`tollgate serve --workers ${workers} was not listening within ${READY_TIMEOUT_MS} ms: ${output}`)),
      READY_TIMEOUT_MS,
    )
    // Read to the end, so the cluster never blocks on a full pipe; what it says once ready (its
    // warnings, a worker replaced) goes where this process's own output goes.
    const read = (chunk: string) => {
      if (ready) {
        process.stdout.write(chunk)
        return
      }
      output += chunk
      const urls = [...output.matchAll(LISTENING)]
      if (urls.length >= workers) {
        ready = true
        clearTimeout(timer)
        resolve(urls[0]![1]!)
      }
    }
    child.stdout!.setEncoding('utf8').on('data', read)
    child.stderr!.setEncoding('utf8').on('data', read)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`tollgate serve --workers ${workers} exited (${code ?? signal}): ${output}`))
    })
  })
}

await runChild<GatewayInfo>(async () => {
  const spec = specOf<ServedGatewaySpec>()
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-served-'))
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true })
  let cluster: ChildProcess | undefined
  const stop = async () => {
    if (cluster !== undefined && cluster.exitCode === null && cluster.signalCode === null) {
      const exited = once(cluster, 'exit')
      cluster.kill('SIGTERM')
      await exited
    }
    removeDataDir()
  }
  try {
    const { projectId, key } = await seedBenchProject(dataDir)
    const configFile = join(dataDir, 'bench-config.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        host: '127.0.0.1',
        port: 0,
        shutdownGraceMs: 2000,
        plugins: {
          auth: { secret: BENCH_SECRET, demoOnFirstStart: false },
          router: { connections: spec.upstreamConnections },
          ...(spec.rateLimit === undefined ? {} : { 'rate-limit': spec.rateLimit }),
        },
      }),
    )
    cluster = spawn('setpriv', ['--pdeathsig', 'TERM', process.execPath, CLI, 'serve', '--workers', String(spec.workers), '--data', dataDir], {
      // Only these variables: settings from the caller's shell must not change what is measured.
      env: { PATH: process.env.PATH, TOLLGATE_CONFIG: configFile, OPENAI_BASE_URL: spec.upstreamUrl, OPENAI_API_KEY: UPSTREAM_API_KEY, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const url = await listening(cluster, spec.workers)
    const pid = cluster.pid!
    return { info: { url, dataDir, projectId, key }, cpuMicros: () => treeCpuMicros([pid]), stop }
  } catch (err) {
    await stop()
    throw err
  }
})
