// The primary's side of a cluster's /metrics: it asks the serving workers and the asker, sums what
// they give, and answers without a worker that is silent or fails, counting that one's last figures.
import t from 'tap'
import { Counter, Registry } from 'prom-client'
import { clusterMetricsGatherer, type MetricsPeer } from '../../proxy/cluster-metrics.ts'
import { until } from '../helpers/until.ts'

type Message = Parameters<MetricsPeer['send']>[0]

class FakeWorker implements MetricsPeer {
  readonly sent: Message[] = []
  readonly registry = new Registry()
  readonly requests = new Counter({ name: 'requests_total', help: 'requests', registers: [this.registry] })
  readonly process: { readonly pid: number }
  constructor(pid: number) {
    this.process = { pid }
  }
  send(message: Message): void {
    this.sent.push(message)
  }
  isConnected(): boolean {
    return true
  }
  /** The id of the primary's last request for this worker's figures. */
  lastRequestId(): string | undefined {
    return this.sent.filter((m) => m.type === 'tollgate:registry-request').at(-1)?.id
  }
}

function setup(serving: FakeWorker[], answerMs = 5_000) {
  const lines: string[] = []
  const onMessage = clusterMetricsGatherer<FakeWorker>({ serving: () => serving, answerMs, log: (line) => lines.push(line) })
  // A copy, as the IPC channel gives: prom-client's JSON holds its live values.
  const answer = async (worker: FakeWorker, id = worker.lastRequestId()!) =>
    onMessage(worker, { type: 'tollgate:registry-response', id, metrics: structuredClone(await worker.registry.getMetricsAsJSON()) })
  const scrape = async (asker: FakeWorker) => {
    const before = asker.sent.length
    onMessage(asker, { type: 'tollgate:metrics-request', id: `scrape-${before}` })
    return async () => {
      await until(() => asker.sent.some((m, i) => i >= before && m.type === 'tollgate:metrics-response'), 'the answer to the scrape')
      return asker.sent.find((m, i) => i >= before && m.type === 'tollgate:metrics-response')!
    }
  }
  return { lines, onMessage, answer, scrape }
}

t.test('the serving workers and the asker are asked, a starting worker is not, and their figures are summed', async (t) => {
  const [a, b, starting] = [new FakeWorker(1), new FakeWorker(2), new FakeWorker(3)]
  a.requests.inc(2)
  b.requests.inc(5)
  const { answer, scrape, lines } = setup([a])
  const reply = await scrape(b)
  t.equal(starting.sent.length, 0, 'a worker not yet serving has nobody listening for the question')
  await answer(a)
  await answer(b)
  const { text, id } = await reply()
  t.equal(id, 'scrape-0')
  t.match(text, /^requests_total 7$/m)
  t.same(lines, [])
})

t.test('a silent worker is counted with the figures it gave last, once the wait is over', async (t) => {
  const [a, b] = [new FakeWorker(1), new FakeWorker(2)]
  const { answer, scrape, lines } = setup([a, b], 20)
  a.requests.inc(1)
  b.requests.inc(10)
  let reply = await scrape(a)
  await answer(a)
  await answer(b)
  t.match((await reply()).text, /^requests_total 11$/m)
  a.requests.inc(1)
  b.requests.inc(10)
  reply = await scrape(a)
  await answer(a)
  const { text } = await reply()
  t.match(text, /^requests_total 12$/m, "the silent worker's last 10, not 0 and not its unseen 20")
  t.match(lines.join('\n'), /^worker 2 gave no metrics within 20 ms/m)
})

t.test('a worker that cannot collect is counted with its last figures at once; a late answer is ignored', async (t) => {
  const [a, b] = [new FakeWorker(1), new FakeWorker(2)]
  const { answer, scrape, lines, onMessage } = setup([a, b])
  a.requests.inc(1)
  let reply = await scrape(a)
  await answer(a)
  onMessage(b, { type: 'tollgate:registry-response', id: b.lastRequestId()!, error: 'Error: store closed' })
  t.match((await reply()).text, /^requests_total 1$/m, 'answered without waiting out the deadline')
  t.match(lines.join('\n'), /worker 2 could not collect its metrics \(Error: store closed\)/)
  const stale = b.lastRequestId()!
  reply = await scrape(a)
  b.requests.inc(100)
  await answer(b, stale)
  await answer(a)
  await answer(b)
  t.match((await reply()).text, /^requests_total 101$/m)
})

t.test('figures that cannot be summed fail the scrape, not the primary', async (t) => {
  const a = new FakeWorker(1)
  const { scrape, onMessage } = setup([a])
  const reply = await scrape(a)
  onMessage(a, {
    type: 'tollgate:registry-response',
    id: a.lastRequestId()!,
    metrics: [{ name: 'odd', help: 'odd', type: 'gauge', values: [], aggregator: 'no such aggregator' }] as never,
  })
  const { text, error } = await reply()
  t.equal(text, undefined)
  t.match(error, /not a defined aggregator/)
})
