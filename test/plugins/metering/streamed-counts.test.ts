// Streamed text is metered with the same counts whether the event loop or the worker pool counts
// it: a cut stream's whole text, and running streams' checkpoints. A long text goes to the pool, a
// short one never does, and a pool that refuses the work loses no usage. The mock provider sends
// each answer's text at once and then stalls, so the text of every stream is known to the test.
import t, { type Test } from 'tap'
import { request } from 'undici'
import { call } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { createLedger } from '../../../plugins/metering/store/lmdb/ledger.ts'
import type { StreamCheckpoint } from '../../../plugins/metering/store/records.ts'
import { builtinPlugins } from '../../../plugins/index.ts'
import { OverloadedError } from '../../../proxy/pipeline/errors.ts'
import type { GatewayPlugin } from '../../../proxy/pipeline/plugin.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import { until } from '../../helpers/until.ts'

/**
 * Metering's own pool calls, counted; with `refuse`, each is refused as a full queue refuses it;
 * with `held`, each waits for it before it runs; with `hang`, none ever answers (its signal ends it).
 */
interface MeteringPool {
  calls: number
  readonly refuse: boolean
  readonly held?: Promise<void>
  readonly hang?: boolean
}

/** The built-in plugins, with metering given a pool that counts its calls (and may refuse them). */
function withMeteringPool(spy: MeteringPool): GatewayPlugin[] {
  return builtinPlugins.map((plugin) =>
    plugin.name !== 'metering'
      ? plugin
      : {
          ...plugin,
          setup(config, deps) {
            const pool: WorkerPool = {
              run(task, input, signal) {
                spy.calls++
                if (spy.refuse) return Promise.reject(new OverloadedError('The worker pool queue is full; retry shortly.'))
                if (spy.hang === true) return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)))
                return (spy.held ?? Promise.resolve()).then(() => deps.pool.run(task, input, signal))
              },
              get queueSize() {
                return deps.pool.queueSize
              },
              get utilization() {
                return deps.pool.utilization
              },
              close: () => deps.pool.close(),
            }
            return plugin.setup(config, { ...deps, pool })
          },
        },
  )
}

/** Prose of about `chars` characters, different for each `seed`. */
function proseOf(chars: number, seed: number): string {
  let text = ''
  for (let i = 0; text.length < chars; i++) text += `Sentence ${seed}.${i} tells how a gateway meters the tokens a model streams, even when the stream is cut. `
  return text.slice(0, chars)
}

async function setup(t: Test, spy: MeteringPool, checkpointIntervalMs: number, countTimeoutMs?: number) {
  const mock = await startMockUpstream({ chunks: 1 })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url, gateway } = await startTestGateway(t, {
    dataDir,
    plugins: withMeteringPool(spy),
    env: { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-openai' },
    overrides: { plugins: { metering: { checkpointIntervalMs, countTimeoutMs } } },
  })
  return { mock, url, gateway, dataDir, key: seeded.keys[0]!.key, projectId: seeded.projectId }
}

interface OpenStream {
  readonly id: string
  readonly text: string
  readonly abort: () => void
}

/** Opens a stream whose answer echoes `content`, and resolves once all of its text has arrived. */
async function streamOf(url: string, key: string, content: string): Promise<OpenStream> {
  const controller = new AbortController()
  const expected = `Echo: ${content}`
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], maxTokens: 16_000 }),
    signal: controller.signal,
  })
  let text = ''
  let buffered = ''
  res.body.setEncoding('utf8')
  res.body.on('error', () => undefined)
  await new Promise<void>((resolve, reject) => {
    res.body.on('data', (chunk: string) => {
      buffered += chunk
      const events = buffered.split('\n\n')
      buffered = events.pop()!
      for (const event of events) {
        const data = /^data: (\{"text".*\})$/m.exec(event)?.[1]
        if (data !== undefined) text += JSON.parse(data).text
      }
      if (text.length >= expected.length) resolve()
    })
    res.body.on('end', () => reject(new Error(`the stream ended with ${text.length} of ${expected.length} characters`)))
  })
  return { id: String(res.headers['x-request-id']), text, abort: () => controller.abort() }
}

/** The ledger of a closed gateway's store. */
function ledgerOf(t: Test, dataDir: string) {
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  return createLedger(store.forPlugin('metering'))
}

t.test('a cut stream with a long text is metered with its exact token count, counted in the pool', async (t) => {
  const spy = { calls: 0, refuse: false }
  const { mock, url, gateway, dataDir, key } = await setup(t, spy, 60_000)
  mock.fail('stream-stall')
  const stream = await streamOf(url, key, proseOf(64 * 1024, 1))
  stream.abort()
  await mock.whenAborted()
  await gateway.close()
  const entry = ledgerOf(t, dataDir).entry(stream.id)
  t.match(entry, { outcome: 'client_aborted', cacheHit: false })
  t.equal(entry!.completionTokens, countTokens(stream.text), 'the tokens of the text the client got')
  t.ok(spy.calls >= 1, `metering called the pool ${spy.calls} times`)
})

t.test('a short cut stream is counted inline, never in the pool', async (t) => {
  const spy = { calls: 0, refuse: false }
  const { mock, url, gateway, dataDir, key } = await setup(t, spy, 60_000)
  mock.fail('stream-stall')
  const stream = await streamOf(url, key, 'Tell me a short story about a meter.')
  stream.abort()
  await mock.whenAborted()
  await gateway.close()
  const entry = ledgerOf(t, dataDir).entry(stream.id)
  t.equal(entry?.completionTokens, countTokens(stream.text))
  t.ok(entry!.completionTokens > 0)
  t.equal(spy.calls, 0, 'the pool was never called')
})

t.test('a pool task that never finishes loses no usage: it is counted on the event loop once its time is up', async (t) => {
  const spy = { calls: 0, refuse: false, hang: true }
  const { mock, url, gateway, dataDir, key } = await setup(t, spy, 60_000, 50)
  mock.fail('stream-stall')
  const stream = await streamOf(url, key, proseOf(64 * 1024, 3))
  stream.abort()
  await mock.whenAborted()
  await until(
    async () => /tollgate_metering_pool_fallbacks_total\{reason="timeout"\} [1-9]/.test(String((await call(`${url}/metrics`)).body)),
    'a timeout fallback in the metrics',
  )
  await gateway.close()
  t.ok(spy.calls >= 1, 'the pool was asked, and never answered')
  t.equal(ledgerOf(t, dataDir).entry(stream.id)?.completionTokens, countTokens(stream.text), 'metered exactly all the same')
})

t.test('a full pool loses no usage: the text is counted on the event loop, and the metric says so', async (t) => {
  const spy = { calls: 0, refuse: true }
  const { mock, url, gateway, dataDir, key } = await setup(t, spy, 60_000)
  mock.fail('stream-stall')
  const stream = await streamOf(url, key, proseOf(64 * 1024, 2))
  stream.abort()
  await mock.whenAborted()
  await until(
    async () => /tollgate_metering_pool_fallbacks_total\{reason="overloaded"\} [1-9]/.test(String((await call(`${url}/metrics`)).body)),
    'an overloaded fallback in the metrics',
  )
  await gateway.close()
  t.ok(spy.calls >= 1, 'the pool was asked, and refused')
  t.equal(ledgerOf(t, dataDir).entry(stream.id)?.completionTokens, countTokens(stream.text), 'metered exactly all the same')
})

t.test('50 streams checkpointed at once, partly in the pool, record the same counts as counted inline; cut, they settle to them', async (t) => {
  const spy = { calls: 0, refuse: false }
  const { mock, url, gateway, dataDir, key, projectId } = await setup(t, spy, 100)
  const STREAMS = 50
  mock.fail('stream-stall', STREAMS)
  // Under the core's piece size (2048 characters), each answer reaches the stream hooks, and so
  // ctx.streamedText, in one piece: its first checkpoint holds all of it, whenever it comes.
  const streams = await Promise.all(Array.from({ length: STREAMS }, (_, i) => streamOf(url, key, proseOf(2000, 100 + i))))
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  const checkpoints = store.forPlugin('metering').open<StreamCheckpoint>('stream-checkpoints', { records: true })
  await until(() => checkpoints.getKeysCount() >= STREAMS, `${STREAMS} checkpoints`, 30_000)
  for (const stream of streams) t.equal(checkpoints.get(stream.id)?.entry.completionTokens, countTokens(stream.text), `checkpoint of ${stream.id}`)
  t.ok(spy.calls >= 1, `the checkpoints called the pool ${spy.calls} times`)

  for (const stream of streams) stream.abort()
  await mock.whenAborted(STREAMS)
  await gateway.close()
  const ledger = createLedger(store.forPlugin('metering'))
  let charged = 0
  for (const stream of streams) {
    const entry = ledger.entry(stream.id)
    t.equal(entry?.completionTokens, countTokens(stream.text), `${stream.id} settled to its whole text`)
    charged += entry!.costMicros
  }
  t.equal(ledger.checkpointCount(), 0, 'no checkpoint is left')
  t.equal(ledger.budget(projectId, ledger.entry(streams[0]!.id)!.month).usedMicros, charged, 'the budget is charged what the ledger says, once')
})

t.test('a stream cut while its checkpoint is being counted settles once, to its whole text, and leaves no checkpoint', async (t) => {
  let release = () => {}
  const spy = {
    calls: 0,
    refuse: false,
    held: new Promise<void>((resolve) => {
      release = resolve
    }),
  }
  const { mock, url, gateway, dataDir, key, projectId } = await setup(t, spy, 100)
  mock.fail('stream-stall')
  const stream = await streamOf(url, key, proseOf(2000, 7))
  await until(() => spy.calls >= 1, "the checkpoint's pool task")
  stream.abort()
  await mock.whenAborted()
  // The cut stream's own count waits in the pool too, behind the checkpoint's.
  await until(() => spy.calls >= 2, "the cut stream's pool task")
  release()
  await gateway.close()
  const ledger = ledgerOf(t, dataDir)
  const entry = ledger.entry(stream.id)
  t.equal(entry?.completionTokens, countTokens(stream.text))
  t.equal(ledger.checkpointCount(), 0, 'the checkpoint counted for a stream already ended was not written')
  t.equal(ledger.budget(projectId, entry!.month).usedMicros, entry!.costMicros, 'charged once')
})
