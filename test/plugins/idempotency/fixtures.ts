// The real gateway for idempotency tests: a seeded project, the provider played by the mock
// upstream (so tests can hold and fail calls and count them), and requests that carry a key.
import type { Test } from 'tap'
import type { Clock } from '../../../proxy/kit/clock.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { createLedger } from '../../../plugins/metering/store/lmdb/ledger.ts'
import type { BudgetRow } from '../../../plugins/metering/logic/budget.ts'
import type { LedgerEntry } from '../../../plugins/metering/store/records.ts'
import type { IdempotencyRecord } from '../../../plugins/idempotency/logic/decide.ts'
import { lmdbRecords } from '../../../plugins/idempotency/store/lmdb.ts'
import { call, type JsonAnswer } from '../../helpers/http.ts'
import { startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

export const body = { messages: [{ role: 'user', content: 'Name three rivers of Europe' }], model: 'gpt-4o-mini' }

export interface IdempotencyGateway {
  readonly url: string
  readonly dataDir: string
  readonly projectId: string
  readonly key: string
  readonly mock: MockUpstream
  /** An AI request with `Idempotency-Key: idempotencyKey` (none when undefined), never served from the cache. */
  send(route: 'complete' | 'chat', idempotencyKey: string | undefined, payload?: unknown): Promise<JsonAnswer>
  /** The month's budget used, in dollars, as /api/usage reports it. */
  budgetUsed(): Promise<number>
  /** Ledger entries (requests) of the day, as /api/usage reports them. */
  requestsMetered(): Promise<number>
  close(): Promise<void>
}

export interface GatewayOptions {
  readonly dataDir?: string
  readonly mock?: MockUpstream
  readonly clock?: Clock
  readonly idempotency?: Record<string, unknown>
  readonly seeded?: { readonly projectId: string; readonly key: string }
  /** DATABASE_URL: the gateway keeps its shared records there, and the project is seeded there. */
  readonly databaseUrl?: string
}

async function seedOne(dataDir: string, databaseUrl: string | undefined): Promise<{ projectId: string; key: string }> {
  const made = await seedProject(dataDir, {}, undefined, databaseUrl === undefined ? {} : { databaseUrl })
  return { projectId: made.projectId, key: made.keys[0]!.key }
}

export async function idempotencyGateway(t: Test, options: GatewayOptions = {}): Promise<IdempotencyGateway> {
  const mock = options.mock ?? (await startMockUpstream())
  if (options.mock === undefined) t.teardown(() => mock.close())
  const dataDir = options.dataDir ?? freshDataDir(t)
  const seeded = options.seeded ?? (await seedOne(dataDir, options.databaseUrl))
  const { url, gateway } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: mock.url, ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }) },
    overrides: { plugins: { router: { retry: { attempts: 0 } }, idempotency: options.idempotency ?? {} } },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  })
  const usage = async () => (await call(`${url}/api/usage?projectId=${seeded.projectId}&period=month`, { key: seeded.key })).body
  return {
    url,
    dataDir,
    projectId: seeded.projectId,
    key: seeded.key,
    mock,
    send(route, idempotencyKey, payload = body) {
      const headers: Record<string, string> = { 'cache-control': 'no-store' }
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
      return call(`${url}/api/ai/${route}`, { key: seeded.key, body: payload, headers })
    },
    budgetUsed: async () => (await usage()).budget.used,
    requestsMetered: async () => Object.values((await usage()).models as Record<string, { requests: number }>).reduce((sum, m) => sum + m.requests, 0),
    close: () => gateway.close(),
  }
}

export interface StoreView {
  readonly entries: ReadonlyArray<{ readonly id: string; readonly costMicros: number; readonly month: string }>
  budget(projectId: string, month: string): BudgetRow
  record(projectId: string, key: string): Promise<IdempotencyRecord | undefined>
}

/** Looks into the ledger and the idempotency records of a data directory that no gateway has open. */
export async function inspect<T>(dataDir: string, look: (view: StoreView) => T | Promise<T>): Promise<T> {
  const store = openStore(dataDir)
  try {
    const ledger = createLedger(store.forPlugin('metering'))
    const records = lmdbRecords(store.forPlugin('idempotency'), { inFlightLeaseMs: 3_600_000 })
    const entries = [...store.forPlugin('metering').open<LedgerEntry>('ledger', { records: true }).getRange()].map((e) => e.value)
    return await look({ entries, budget: (projectId, month) => ledger.budget(projectId, month), record: (projectId, key) => records.get({ projectId, key }) })
  } finally {
    await store.close()
  }
}
