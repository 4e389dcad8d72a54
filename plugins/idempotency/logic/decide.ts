// The records kept per key and the decision a request under a key gets. Pure: the store
// (store/index.ts) reads the record and applies the decision atomically.
import type { CompletionResult } from '../../../proxy/pipeline/completion.ts'

/** A key is honoured this long after its first use (Stripe's 24 hours). */
export const RETENTION_MS = 24 * 60 * 60 * 1000

interface RecordBase {
  /** requestHash() of the request that first used the key. */
  readonly hash: string
  /** Clock ms of that first use; the record expires RETENTION_MS later. */
  readonly createdAt: number
  /** The request that answers, or answered, under the key. */
  readonly requestId: string
}

export interface InFlightRecord extends RecordBase {
  readonly state: 'in_flight'
  /** `pid:uuid` of the process running the request (proxy/stores/process-owner.ts). */
  readonly owner: string
}

/** The answer as its client received it, and what the original request was charged. */
export interface StoredAnswer {
  readonly result: CompletionResult
  /** The answer's headers set by the chain (model, Governor verdict, trimming), not the request's own rate-limit headers. */
  readonly headers: ReadonlyArray<readonly [name: string, value: string]>
  readonly keyId: string
  /** Clock ms when the answer was committed, about when its charge was settled. */
  readonly answeredAt: number
  readonly chargedMicros: number
}

export interface DoneRecord extends RecordBase {
  readonly state: 'done'
  readonly answer: StoredAnswer
}

export type IdempotencyRecord = InFlightRecord | DoneRecord

export type Decision =
  /** No live record: this request runs, and owns the key until it ends. */
  | { readonly kind: 'run'; readonly takenOver: boolean }
  | { readonly kind: 'replay'; readonly record: DoneRecord }
  /** The key was used with another request. */
  | { readonly kind: 'mismatch' }
  /** The same request runs in this process. */
  | { readonly kind: 'wait'; readonly requestId: string }
  /** The same request runs in another live process. */
  | { readonly kind: 'busy' }

export interface Claimant {
  readonly hash: string
  readonly now: number
  /** This process, as owners are written. */
  readonly owner: string
  readonly isLive: (owner: string) => boolean
  /** A run older than this is abandoned even when its owner looks alive (a pid can be reused). */
  readonly leaseMs: number
}

export function isExpired(record: IdempotencyRecord, now: number): boolean {
  return now - record.createdAt >= RETENTION_MS
}

export function decide(record: IdempotencyRecord | undefined, claimant: Claimant): Decision {
  if (record === undefined || isExpired(record, claimant.now)) return { kind: 'run', takenOver: false }
  if (record.hash !== claimant.hash) return { kind: 'mismatch' }
  if (record.state === 'done') return { kind: 'replay', record }
  if (record.owner === claimant.owner) return { kind: 'wait', requestId: record.requestId }
  if (claimant.isLive(record.owner) && claimant.now - record.createdAt < claimant.leaseMs) return { kind: 'busy' }
  // The process that ran it is gone without committing an answer: run it again.
  return { kind: 'run', takenOver: true }
}
