// /metrics in a cluster (tollgate serve --workers N): the worker that is scraped asks the primary,
// the primary asks every worker that serves for its registry and sums them (prom-client's
// aggregation). Only serving workers are asked: a worker still starting has no listener for the
// question yet, and waiting for its answer made every scrape during a start fail after 5 s. A
// worker that does not answer within ANSWER_MS (stopped, its event loop stuck) is counted with
// the figures it gave last, so counters never step back, and the scrape still answers.
import { randomUUID } from 'node:crypto'
import { AggregatorRegistry, type Registry } from 'prom-client'

const METRICS_REQUEST = 'tollgate:metrics-request'
const METRICS_RESPONSE = 'tollgate:metrics-response'
const REGISTRY_REQUEST = 'tollgate:registry-request'
const REGISTRY_RESPONSE = 'tollgate:registry-response'

/** How long a scrape waits for each worker's figures. */
const ANSWER_MS = 2000

type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>

interface ClusterMessage {
  readonly type?: string
  readonly id?: string
  readonly text?: string
  readonly metrics?: RegistryJson
  readonly error?: string
}

/** The side of a worker the primary talks to (a node:cluster Worker; a stand-in in tests). */
export interface MetricsPeer {
  send(message: ClusterMessage): void
  isConnected(): boolean
  readonly process: { readonly pid?: number | undefined }
}

interface GathererOptions<W extends MetricsPeer> {
  /** The workers that have said they serve. */
  readonly serving: () => Iterable<W>
  readonly answerMs?: number
  /** One line for the operator. */
  readonly log: (line: string) => void
}

interface Gathering<W> {
  readonly waiting: Set<W>
  readonly answers: Map<W, RegistryJson>
  readonly finish: () => void
}

/**
 * In the primary: answers the workers' metrics requests with the figures of every serving
 * worker. Give it every message a worker sends; it ignores the ones that are not its own.
 */
export function clusterMetricsGatherer<W extends MetricsPeer>(options: GathererOptions<W>): (worker: W, message: ClusterMessage) => void {
  const answerMs = options.answerMs ?? ANSWER_MS
  const lastGiven = new WeakMap<W, RegistryJson>()
  const gatherings = new Map<string, Gathering<W>>()

  function gather(asker: W, requestId: string): void {
    const id = randomUUID()
    // The asker serves: it listens, whether or not the primary has had its ready message yet.
    const asked = new Set([...options.serving(), asker].filter((w) => w.isConnected()))
    const waiting = new Set(asked)
    const answers = new Map<W, RegistryJson>()
    const finish = () => {
      clearTimeout(timer)
      gatherings.delete(id)
      if (waiting.size > 0) {
        options.log(
          `worker ${[...waiting].map((w) => w.process.pid).join(', ')} gave no metrics within ${answerMs} ms; /metrics counts the figures it gave last`,
        )
      }
      const figures = [...asked].map((w) => answers.get(w) ?? lastGiven.get(w)).filter((json) => json !== undefined)
      const reply = (message: ClusterMessage) => {
        if (asker.isConnected()) asker.send(message)
      }
      // aggregate() throws on a metric it cannot sum: that fails the scrape, never the primary.
      Promise.resolve(figures)
        .then((all) => AggregatorRegistry.aggregate(all).metrics())
        .then(
          (text) => reply({ type: METRICS_RESPONSE, id: requestId, text }),
          (err: unknown) => reply({ type: METRICS_RESPONSE, id: requestId, error: String(err) }),
        )
    }
    const timer = setTimeout(finish, answerMs)
    gatherings.set(id, { waiting, answers, finish })
    for (const worker of asked) worker.send({ type: REGISTRY_REQUEST, id })
  }

  return (worker, message) => {
    if (message?.type === METRICS_REQUEST && message.id !== undefined) return gather(worker, message.id)
    if (message?.type !== REGISTRY_RESPONSE || message.id === undefined) return
    const gathering = gatherings.get(message.id)
    if (gathering === undefined || !gathering.waiting.delete(worker)) return
    if (message.metrics === undefined) {
      options.log(
        `worker ${worker.process.pid} could not collect its metrics (${message.error ?? 'no reason given'}); /metrics counts the figures it gave last`,
      )
    } else {
      gathering.answers.set(worker, message.metrics)
      lastGiven.set(worker, message.metrics)
    }
    if (gathering.waiting.size === 0) gathering.finish()
  }
}

/** In a worker: gives the primary this registry's figures when asked, and returns a source of the whole cluster's metrics. */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  const pending = new Map<string, { resolve: (text: string) => void; reject: (err: Error) => void }>()
  process.on('message', (message: ClusterMessage) => {
    if (message?.type === REGISTRY_REQUEST) {
      registry.getMetricsAsJSON().then(
        (metrics) => process.send!({ type: REGISTRY_RESPONSE, id: message.id, metrics }),
        (err: unknown) => process.send!({ type: REGISTRY_RESPONSE, id: message.id, error: String(err) }),
      )
      return
    }
    if (message?.type !== METRICS_RESPONSE || message.id === undefined) return
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
