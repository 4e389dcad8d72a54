// The piscina worker pools for CPU-heavy tasks (workers/tasks.ts). Queues are bounded: a full
// queue answers 503 with retry-after instead of letting latency grow without limit. Password
// hashing has a thread of its own, so requests full of user text can never make a login wait.
import { Piscina } from 'piscina'
import { Gauge, Histogram, type Registry } from 'prom-client'
import { OverloadedError } from '../pipeline/errors.ts'
import type * as Tasks from '../../workers/tasks.ts'

type TaskName = keyof typeof Tasks
type TaskInput<K extends TaskName> = Parameters<(typeof Tasks)[K]>[0]
type TaskOutput<K extends TaskName> = Awaited<ReturnType<(typeof Tasks)[K]>>

interface PoolOptions {
  readonly maxThreads: number
  readonly maxQueue: number
  readonly idleTimeoutMs: number
}

export interface WorkerPool {
  run<K extends TaskName>(task: K, input: TaskInput<K>, signal?: AbortSignal): Promise<TaskOutput<K>>
  readonly queueSize: number
  readonly utilization: number
  close(): Promise<void>
}

const PASSWORD_TASKS: ReadonlySet<TaskName> = new Set(['hashPassword', 'verifyPassword'])
/** Logins waiting beyond this many are refused with 503 rather than queued without end. */
const PASSWORD_QUEUE = 256

export function createPool(options: PoolOptions, registry: Registry): WorkerPool {
  const piscina = new Piscina({
    filename: new URL('../../workers/tasks.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: options.maxThreads,
    maxQueue: options.maxQueue,
    idleTimeout: options.idleTimeoutMs,
  })
  // Its thread loads only the password module, not the tokenizer and the scanners.
  const passwords = new Piscina({
    filename: new URL('../../workers/password.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    maxQueue: PASSWORD_QUEUE,
    idleTimeout: options.idleTimeoutMs,
  })
  new Gauge({
    name: 'tollgate_worker_queue_depth',
    help: 'Tasks waiting for a worker thread.',
    registers: [registry],
    collect() {
      this.set(piscina.queueSize)
    },
  })
  const duration = new Histogram({
    name: 'tollgate_worker_task_duration_seconds',
    help: 'Worker pool tasks from submission to result, queueing included.',
    labelNames: ['task'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [registry],
  })
  return {
    async run(task, input, signal) {
      const [runner, limit] = PASSWORD_TASKS.has(task) ? [passwords, PASSWORD_QUEUE] : [piscina, options.maxQueue]
      if (runner.queueSize >= limit) {
        throw new OverloadedError('The worker pool queue is full; retry shortly.')
      }
      const end = duration.startTimer({ task })
      try {
        return await runner.run(input, signal === undefined ? { name: task } : { name: task, signal })
      } finally {
        end()
      }
    },
    get queueSize() {
      return piscina.queueSize
    },
    get utilization() {
      return piscina.utilization
    },
    close: async () => {
      await Promise.all([piscina.close(), passwords.close()])
    },
  }
}
