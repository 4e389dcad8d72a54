// Several gateway processes on one host (tollgate serve --workers N): node:cluster shares the
// port, LMDB shares the store, and /metrics on any worker answers for all of them by asking the
// primary, which gathers every worker's registry (prom-client's AggregatorRegistry).
import cluster, { type Worker } from 'node:cluster'
import { randomUUID } from 'node:crypto'
import { AggregatorRegistry, type Registry } from 'prom-client'

const METRICS_REQUEST = 'tollgate:metrics-request'
const METRICS_RESPONSE = 'tollgate:metrics-response'

interface MetricsMessage {
  readonly type: string
  readonly id: string
  readonly text?: string
  readonly error?: string
}

export interface PrimaryOptions {
  readonly workers: number
  readonly log: (line: string) => void
}

/** Forks the workers one after another (the first one may seed a fresh store), restarts any that die, stops them all on SIGTERM/SIGINT. */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  const aggregator = new AggregatorRegistry()
  let stopping = false
  cluster.on('message', (worker: Worker, message: MetricsMessage) => {
    if (message?.type !== METRICS_REQUEST) return
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
      (err: unknown) => worker.send({ type: METRICS_RESPONSE, id: message.id, error: String(err) }),
    )
  })
  const fork = () =>
    new Promise<void>((resolve, reject) => {
      const worker = cluster.fork()
      worker.once('listening', () => resolve())
      worker.once('exit', (code, signal) => {
        if (stopping) return
        options.log(`worker ${worker.process.pid} exited (${signal ?? code}); starting a new one`)
        reject(new Error('worker exited before listening'))
        setTimeout(() => void fork().catch(() => undefined), 1000).unref()
      })
    })
  for (let i = 0; i < options.workers; i++) await fork()
  const stop = () => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    const wait = setInterval(() => {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        clearInterval(wait)
        process.exit(0)
      }
    }, 50)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/** In a worker: a source of metrics for the whole cluster, answered by the primary. */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  new AggregatorRegistry()
  AggregatorRegistry.setRegistries([registry])
  const pending = new Map<string, { resolve: (text: string) => void; reject: (err: Error) => void }>()
  process.on('message', (message: MetricsMessage) => {
    if (message?.type !== METRICS_RESPONSE) return
    const waiter = pending.get(message.id)
    if (waiter === undefined) return
    pending.delete(message.id)
    if (message.text !== undefined) waiter.resolve(message.text)
    else waiter.reject(new Error(message.error ?? 'no metrics from the primary'))
  })
  return () =>
    new Promise((resolve, reject) => {
      const id = randomUUID()
      pending.set(id, { resolve, reject })
      process.send!({ type: METRICS_REQUEST, id })
    })
}

export const isClusterWorker = () => cluster.isWorker
