// Where the idempotency records are kept: LMDB on one host (lmdb.ts), PostgreSQL when
// several gateways share DATABASE_URL (postgres.ts), so that a retry sent to another
// gateway finds the first request's record. Either way a key has one owner at a time, and a
// committed answer survives a kill -9.
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../proxy/stores/database.ts'
import { SELF_OWNER } from '../../../proxy/stores/process-owner.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import type { Decision, IdempotencyRecord, StoredAnswer } from '../logic/decide.ts'
import { lmdbRecords } from './lmdb.ts'
import { postgresRecords } from './postgres.ts'

export interface RecordId {
  readonly projectId: string
  readonly key: string
}

/** The request that asks for a key: what it hashes to, and when it came. */
interface ClaimRequest {
  readonly hash: string
  readonly now: number
}

export interface IdempotencyRecords {
  get(id: RecordId): Promise<IdempotencyRecord | undefined>
  /**
   * Decides atomically, and on 'run' writes the in-flight record for requestId, owned by this
   * process. `onRun` is called before the record can be seen, so a concurrent claim decided
   * after it already finds what the caller set up.
   */
  claim(id: RecordId, request: ClaimRequest, requestId: string, onRun: () => void): Promise<Decision>
  /** Stores the answer of requestId's run; false when the key is no longer its run (expired, taken over). */
  finish(id: RecordId, requestId: string, answer: StoredAnswer): Promise<boolean>
  /** Removes requestId's record so that a retry runs. */
  release(id: RecordId, requestId: string): Promise<void>
  /** Removes up to `limit` expired records, oldest first; resolves with how many. */
  sweep(now: number, limit: number): Promise<number>
  close(): Promise<void>
}

interface RecordsDeps {
  readonly store: PluginStore
  readonly database: PluginDatabase | undefined
  readonly clock: Clock
}

interface RecordsConfig {
  readonly inFlightLeaseMs: number
  readonly ownerLeaseMs: number
}

export async function openIdempotencyRecords({ store, database, clock }: RecordsDeps, config: RecordsConfig): Promise<IdempotencyRecords> {
  return database === undefined
    ? lmdbRecords(store, { inFlightLeaseMs: config.inFlightLeaseMs })
    : await postgresRecords(database, { clock, owner: SELF_OWNER, ownerLeaseMs: config.ownerLeaseMs, inFlightLeaseMs: config.inFlightLeaseMs })
}
