// Streams cut by a crash of the gateway serving them, for the tests of what a restart or a
// surviving gateway charges for them: each started against the mock's never-ending stream, and
// followed until its client has some text.
import type { Test } from 'tap'
import { request } from 'undici'
import { modelCatalog } from '../../proxy/pipeline/catalog.ts'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshDataDir, seedProject, TEST_SECRET } from './start-gateway.ts'
import { type Ledger, createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'
import { microsOfDollars } from '../../proxy/pipeline/price.ts'
import type { LedgerEntry } from '../../plugins/metering/store/records.ts'
import { openStore, type Store } from '../../proxy/stores/store.ts'
import { spawnGateway } from './spawn-gateway.ts'
import type { MockUpstream } from './mock-upstream.ts'
import { until } from './until.ts'

const STREAMS = 10
const MAX_TOKENS = 400
const DELTAS_BEFORE_CRASH = 4

export interface CutStream {
  readonly id: string
  readonly promptTokens: number
  deltas: number
}

/** Streams on `url` that never end, once every client has received a few deltas. */
export async function streamsToCut(t: Test, mock: MockUpstream, url: string, key: string): Promise<CutStream[]> {
  mock.fail('slow-stream', STREAMS)
  const streams = await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      const res = await request(`${url}/api/ai/chat`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: JSON.stringify({ messages: [{ role: 'user', content: `A short answer, please, number ${i}` }], maxTokens: MAX_TOKENS }),
      })
      const stream: CutStream = { id: String(res.headers['x-request-id']), promptTokens: Number(res.headers['x-gateway-prompt-tokens']), deltas: 0 }
      res.body.setEncoding('utf8')
      res.body.on('data', (chunk: string) => {
        stream.deltas += chunk.match(/^data: \{"text"/gm)?.length ?? 0
      })
      res.body.on('error', () => undefined)
      return stream
    }),
  )
  await until(() => streams.every((stream) => stream.deltas >= DELTAS_BEFORE_CRASH), 'some deltas on every stream')
  t.ok(
    streams.every((stream) => stream.promptTokens > 0),
    'each stream announced its prompt tokens',
  )
  return streams
}

/** Each cut stream is in the ledger, charged at least its prompt and never above its hold or its worst case. */
export function checkCutCharges(
  t: Test,
  streams: readonly CutStream[],
  entryOf: (id: string) => LedgerEntry | undefined,
  holdOf: (id: string) => number | undefined,
): void {
  const free = streams.filter((stream) => (entryOf(stream.id)?.costMicros ?? 0) === 0)
  t.equal(free.length, 0, `${free.length} of ${streams.length} streams cut by the crash settled free`)
  for (const stream of streams) {
    const entry = entryOf(stream.id)
    if (entry === undefined) continue
    const model = modelCatalog().info(entry.model)
    const priced = (prompt: number, completion: number) => microsOfDollars((prompt * model.inputPerMillion + completion * model.outputPerMillion) / 1_000_000)
    t.equal(entry.outcome, 'recovered')
    t.equal(entry.promptTokens, stream.promptTokens, 'its prompt is counted')
    t.ok(entry.costMicros >= priced(stream.promptTokens, 0), `at least its prompt is charged (${entry.costMicros} micros)`)
    t.ok(entry.completionTokens <= stream.deltas * 2 + 2, `and no more output than the client got (${entry.completionTokens} tokens, ${stream.deltas} deltas)`)
    t.ok(entry.costMicros <= priced(stream.promptTokens, MAX_TOKENS), 'never more than the request could cost')
    const hold = holdOf(stream.id)
    if (hold !== undefined) t.ok(entry.costMicros <= hold, `never above its hold (${hold} micros)`)
  }
}

/**
 * The store and ledger of `dataDir` once a gateway has started on it and stopped again: the
 * restart settles what a crashed process left.
 */
export async function ledgerAfterRestart(
  t: Test,
  cli: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ readonly store: Store; readonly ledger: Ledger }> {
  const second = await spawnGateway(t, [cli, 'serve', '--data', dataDir], env)
  second.child.kill('SIGTERM')
  await once(second.child, 'exit')
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  return { store, ledger: createLedger(store.forPlugin('metering')) }
}

/**
 * A gateway process on a fresh store, its provider the mock, with metering's `shared` and
 * checkpoint interval as the crash test sets them: the process to kill, and what a restart needs.
 */
export async function gatewayToCrash(t: Test, cli: string, mock: MockUpstream, metering: { readonly shared: boolean; readonly checkpointIntervalMs: number }) {
  const dataDir = freshDataDir(t)
  const configFile = join(dataDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ plugins: { metering } }))
  const seeded = await seedProject(dataDir, { budgetDollars: 1000 })
  const env = {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    TOLLGATE_CONFIG: configFile,
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
  }
  const first = await spawnGateway(t, [cli, 'serve', '--data', dataDir], env)
  return { dataDir, seeded, env, first }
}
