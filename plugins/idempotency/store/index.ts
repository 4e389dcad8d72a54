// Where the idempotency records are kept: LMDB on one host (lmdb.ts), PostgreSQL when
// several gateways share DATABASE_URL (postgres.ts), so that a retry sent to another
// gateway finds the first request's record. Either way a key has one owner at a time, and a
// committed answer survives a kill -9.
import type { Decision, IdempotencyRecord, StoredAnswer } from '../logic/decide.ts'

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
