// Starting the benchmark's servers, each in its own Node process so the load generator never shares
// an event loop with the server under test. Children report readiness over IPC; every child is
// stopped when the run ends, fails or is interrupted.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ChildMessage, ParentMessage } from './child-message.ts'
import { pinnedCommand } from './pinning.ts'

// A gateway boots its detectors and stores: on a loaded two-core machine that took over 30 s about once in five starts.
const READY_TIMEOUT_MS = 90_000
const STOP_GRACE_MS = 5_000
const ANSWER_TIMEOUT_MS = 5_000

export interface Child<I> {
  readonly name: string
  readonly pid: number
  /** What the child announced once ready (its URL and so on). */
  readonly info: I
  /** CPU time (user + system, all threads) the child has used since it started. */
  cpuMicros(): Promise<number>
  /** Resident memory now, from /proc; undefined where /proc is not there. */
  rssBytes(): number | undefined
}

export interface ChildOptions {
  /** Extra flags for the child's Node, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[]
  /** The CPUs to pin the child to instead of the servers' CPU (a cluster's). */
  readonly cpus?: readonly number[]
  /** How long it may take to be ready (READY_TIMEOUT_MS otherwise): a cluster starts its workers one by one. */
  readonly readyTimeoutMs?: number
}

/** VmRSS of a process in bytes, or undefined where /proc cannot tell. */
export function rssBytesOf(pid: number): number | undefined {
  try {
    const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return line === null ? undefined : Number(line[1]) * 1024
  } catch {
    return undefined
  }
}

/** The children of one run; `stopAll` ends them all. */
export class Fleet {
  readonly #children = new Map<string, ChildProcess>()
  readonly #serverCpu: number | undefined

  /** Every child is started on `serverCpu` when it is set (see pinning.ts). */
  constructor(serverCpu?: number) {
    this.#serverCpu = serverCpu
  }

  /** Spawns `bench/targets/<entry>.ts` with `spec` as its JSON argument and waits for it to be ready. */
  async start<I>(name: string, entry: string, spec: unknown, options: ChildOptions = {}): Promise<Child<I>> {
    const file = fileURLToPath(new URL(`./targets/${entry}.ts`, import.meta.url))
    // taskset execs Node in its own place, so the PID is Node's.
    const [command, ...args] = pinnedCommand([process.execPath, ...(options.nodeFlags ?? []), file, JSON.stringify(spec)], options.cpus ?? this.#serverCpu)
    // The child's stdout goes to our stderr, so its log lines never mix with `--json` output.
    const child = spawn(command!, args, { stdio: ['ignore', 2, 2, 'ipc'] })
    this.#children.set(name, child)
    child.once('exit', () => this.#children.delete(name))
    const info = await readyInfo<I>(name, child, options.readyTimeoutMs ?? READY_TIMEOUT_MS)
    const pid = child.pid!
    return { name, pid, info, cpuMicros: () => cpuMicrosOf(name, child), rssBytes: () => rssBytesOf(pid) }
  }

  /** Stops one child as stopAll does; nothing when it is not running. */
  async stopOne(name: string): Promise<void> {
    const child = this.#children.get(name)
    if (child !== undefined) await stop(child)
  }

  /** SIGTERM to every child, SIGKILL to those still running after the grace period. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#children.values()].map((child) => stop(child)))
  }

  /** The CPU every child runs on unless told otherwise; undefined when not pinned. */
  get serverCpu(): number | undefined {
    return this.#serverCpu
  }

  /** PIDs of the children running now. */
  pids(): number[] {
    return [...this.#children.values()].flatMap((child) => (child.pid === undefined ? [] : [child.pid]))
  }

  /** Last resort on process exit, where nothing asynchronous can run. */
  killAllNow(): void {
    for (const child of this.#children.values()) child.kill('SIGKILL')
  }
}

function readyInfo<I>(name: string, child: ChildProcess, timeoutMs: number): Promise<I> {
  return new Promise<I>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`${name} was not ready within ${timeoutMs} ms`)), timeoutMs)
    const onMessage = (message: ChildMessage<I>) => {
      if (message.type === 'ready') finish(undefined, message.info)
      else if (message.type === 'failed') finish(new Error(`${name} failed to start: ${message.message}`))
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`))
    const onError = (err: Error) => finish(err)
    function finish(err: Error | undefined, info?: I) {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      child.off('error', onError)
      if (err === undefined) resolve(info as I)
      else reject(err)
    }
    child.on('message', onMessage)
    child.on('exit', onExit)
    child.on('error', onError)
  })
}

function cpuMicrosOf(name: string, child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage)
      reject(new Error(`${name} did not report its CPU time within ${ANSWER_TIMEOUT_MS} ms`))
    }, ANSWER_TIMEOUT_MS)
    const onMessage = (message: ChildMessage<unknown>) => {
      if (message.type !== 'cpu-usage') return
      clearTimeout(timer)
      child.off('message', onMessage)
      resolve(message.micros)
    }
    child.on('message', onMessage)
    const question: ParentMessage = { type: 'cpu-usage' }
    child.send(question)
  })
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
  await exited
  clearTimeout(timer)
}
