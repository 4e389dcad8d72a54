// Starting the benchmark's servers, each in its own Node process so the load generator never shares
// an event loop with the server under test. Children report readiness over IPC; every child is
// stopped when the run ends, fails or is interrupted.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { ChildMessage, ParentMessage } from './child-message.ts'

const READY_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 5_000
const ANSWER_TIMEOUT_MS = 5_000

export interface Child<I> {
  readonly name: string
  /** What the child announced once ready (its URL and so on). */
  readonly info: I
  /** CPU time (user + system, all threads) the child has used since it started. */
  cpuMicros(): Promise<number>
}

export interface ChildOptions {
  /** Extra flags for the child's Node, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[]
}

/** The children of one run; `stopAll` ends them all. */
export class Fleet {
  readonly #children = new Map<string, ChildProcess>()

  /** Spawns `bench/targets/<entry>.ts` with `spec` as its JSON argument and waits for it to be ready. */
  async start<I>(name: string, entry: string, spec: unknown, options: ChildOptions = {}): Promise<Child<I>> {
    const file = fileURLToPath(new URL(`./targets/${entry}.ts`, import.meta.url))
    // The child's stdout goes to our stderr, so its log lines never mix with `--json` output.
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), file, JSON.stringify(spec)], {
      stdio: ['ignore', 2, 2, 'ipc'],
    })
    this.#children.set(name, child)
    child.once('exit', () => this.#children.delete(name))
    const info = await readyInfo<I>(name, child)
    return { name, info, cpuMicros: () => cpuMicrosOf(name, child) }
  }

  /** SIGTERM to every child, SIGKILL to those still running after the grace period. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#children.values()].map((child) => stop(child)))
  }

  /** Last resort on process exit, where nothing asynchronous can run. */
  killAllNow(): void {
    for (const child of this.#children.values()) child.kill('SIGKILL')
  }
}

function readyInfo<I>(name: string, child: ChildProcess): Promise<I> {
  return new Promise<I>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`${name} was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS)
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
