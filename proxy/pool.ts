// The piscina worker pool for CPU-heavy tasks (workers/tasks.ts). Its queue is bounded: a full
// queue answers 503 with retry-after instead of letting latency grow without limit.
import { Piscina } from 'piscina'
import { OverloadedError } from './errors.ts'
import type * as Tasks from '../workers/tasks.ts'

type TaskName = keyof typeof Tasks
type TaskInput<K extends TaskName> = Parameters<(typeof Tasks)[K]>[0]
type TaskOutput<K extends TaskName> = Awaited<ReturnType<(typeof Tasks)[K]>>

export interface PoolOptions {
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

export function createPool(options: PoolOptions): WorkerPool {
  const piscina = new Piscina({
    filename: new URL('../workers/tasks.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: options.maxThreads,
    maxQueue: options.maxQueue,
    idleTimeout: options.idleTimeoutMs,
  })
  return {
    async run(task, input, signal) {
      if (piscina.queueSize >= options.maxQueue) {
        throw new OverloadedError('The worker pool queue is full; retry shortly.')
      }
      return piscina.run(input, signal === undefined ? { name: task } : { name: task, signal })
    },
    get queueSize() {
      return piscina.queueSize
    },
    get utilization() {
      return piscina.utilization
    },
    close: () => piscina.close(),
  }
}
