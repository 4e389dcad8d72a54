// `tollgate serve --workers N` in a child process, with its output and its workers' process ids
// (read from /proc), all stopped with the test.
import type { Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { freshDataDir, TEST_SECRET } from './start-gateway.ts'
import { until } from './until.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

export interface Primary {
  readonly child: ChildProcess
  /** stdout and stderr so far. */
  readonly output: () => string
  /** Resolves once the output matches `pattern` `count` times. */
  readonly until: (pattern: RegExp, count?: number) => Promise<void>
  readonly workers: () => number[]
}

export function launchPrimary(t: Test, workers: number, env: NodeJS.ProcessEnv = {}, dataDir = freshDataDir(t)): Primary {
  // tap adds its preload to every process a test spawns (NODE_OPTIONS); it takes SIGTERM and
  // SIGINT itself and would hide what the gateway does with them. `env -u` drops it (and execs
  // Node, so the child's process id is the primary's).
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, CLI, 'serve', '--workers', String(workers), '--data', dataDir], {
    env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const seen = new Set<number>()
  const workerPids = () => {
    const file = `/proc/${child.pid}/task/${child.pid}/children`
    const now = existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : []
    for (const pid of now) seen.add(pid)
    return now
  }
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
    for (const pid of seen) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return {
    child,
    output: () => output,
    workers: workerPids,
    async until(pattern, count = 1) {
      const global = new RegExp(pattern.source, 'g')
      await until(
        () => {
          if (child.exitCode !== null || child.signalCode !== null)
            throw new Error(`the primary exited (${child.exitCode ?? child.signalCode}) while waiting for ${pattern}: ${output}`)
          workerPids()
          return (output.match(global) ?? []).length >= count
        },
        `${count} × ${pattern} in the output`,
        60_000,
      )
    },
  }
}

/** A process that has exited and waits to be reaped (a zombie) is not running. */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** The first worker's process id, as soon as it is forked. */
export async function firstWorker(primary: Primary): Promise<number> {
  let first: number | undefined
  await until(
    () => {
      first = primary.workers()[0]
      if (first === undefined && (primary.child.exitCode !== null || primary.child.signalCode !== null))
        throw new Error(`the primary exited: ${primary.output()}`)
      return first !== undefined
    },
    'the first worker',
    30_000,
  )
  return first!
}

/** The URL the first worker printed, once its whole line is out. */
export const urlOf = (output: string) => /listening on (http:\/\/\S+)\n/.exec(output)![1]!

/**
 * performance.now() when the process ended, read from /proc: on a loaded machine the test's own
 * `exit` event can come most of a second after the process is gone.
 */
export async function endOf(pid: number, timeoutMs = 60_000): Promise<number> {
  await until(() => !isRunning(pid), `process ${pid} to end`, timeoutMs)
  return performance.now()
}

/** A fresh connection each time, so the primary hands the requests to both workers in turn. */
export function freshConnection(url: string, headers: Record<string, string>, body?: unknown): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      url,
      { method: body === undefined ? 'GET' : 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    ).on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}
