// The idempotency records, keyed by project and key, with an index by creation time for the
// sweep. Every change is one LMDB transaction, so processes sharing the store see one owner per
// key, and a record committed here survives a kill -9.
import type { PluginStore } from '../../proxy/store.ts'
import { decide, isExpired, RETENTION_MS, type Claimant, type Decision, type IdempotencyRecord, type StoredAnswer } from './decide.ts'

export interface RecordId {
  readonly projectId: string
  readonly key: string
}

type RecordKey = [projectId: string, key: string]
type AgeKey = [createdAt: number, projectId: string, key: string]

export interface IdempotencyRecords {
  get(id: RecordId): IdempotencyRecord | undefined
  /**
   * Decides in one transaction, and on 'run' writes the in-flight record for requestId.
   * `onRun` is called inside the transaction, so a concurrent claim decided after it already
   * finds what the caller set up.
   */
  claim(id: RecordId, claimant: Claimant, requestId: string, onRun: () => void): Promise<Decision>
  /** Stores the answer of requestId's run; false when the key is no longer its run (expired, taken over). */
  finish(id: RecordId, requestId: string, answer: StoredAnswer): Promise<boolean>
  /** Removes requestId's record so that a retry runs. */
  release(id: RecordId, requestId: string): Promise<void>
  /** Removes up to `limit` expired records, oldest first; resolves with how many. */
  sweep(now: number, limit: number): Promise<number>
}

export function createRecords(store: PluginStore): IdempotencyRecords {
  const records = store.open<IdempotencyRecord>('records', { records: true })
  const byAge = store.open<null>('by-age')
  const keyOf = (id: RecordId): RecordKey => [id.projectId, id.key]
  const ageKeyOf = (id: RecordId, createdAt: number): AgeKey => [createdAt, id.projectId, id.key]

  function put(id: RecordId, record: IdempotencyRecord, previous: IdempotencyRecord | undefined): void {
    if (previous !== undefined && previous.createdAt !== record.createdAt) byAge.remove(ageKeyOf(id, previous.createdAt))
    records.put(keyOf(id), record)
    byAge.put(ageKeyOf(id, record.createdAt), null)
  }

  function remove(id: RecordId, record: IdempotencyRecord): void {
    records.remove(keyOf(id))
    byAge.remove(ageKeyOf(id, record.createdAt))
  }

  return {
    get: (id) => records.get(keyOf(id)),
    claim(id, claimant, requestId, onRun) {
      return store.transaction(() => {
        const previous = records.get(keyOf(id))
        const decision = decide(previous, claimant)
        if (decision.kind === 'run') {
          put(id, { state: 'in_flight', hash: claimant.hash, createdAt: claimant.now, requestId, owner: claimant.owner }, previous)
          onRun()
        }
        return decision
      })
    },
    finish(id, requestId, answer) {
      return store.transaction(() => {
        const current = records.get(keyOf(id))
        if (current?.state !== 'in_flight' || current.requestId !== requestId) return false
        put(id, { state: 'done', hash: current.hash, createdAt: current.createdAt, requestId, answer }, current)
        return true
      })
    },
    release(id, requestId) {
      return store.transaction(() => {
        const current = records.get(keyOf(id))
        if (current?.requestId === requestId) remove(id, current)
      })
    },
    sweep(now, limit) {
      // Most rounds find nothing old enough: a read of the oldest entry spares them a write transaction.
      const [oldest] = byAge.getKeys({ limit: 1 })
      if (oldest === undefined || now - (oldest as AgeKey)[0] < RETENTION_MS) return Promise.resolve(0)
      return store.transaction(() => {
        let removed = 0
        for (const ageKey of [...byAge.getKeys({ limit })]) {
          const [createdAt, projectId, key] = ageKey as AgeKey
          if (now - createdAt < RETENTION_MS) break
          byAge.remove(ageKey)
          const id = { projectId, key }
          const current = records.get(keyOf(id))
          if (current !== undefined && current.createdAt === createdAt && isExpired(current, now)) {
            records.remove(keyOf(id))
            removed++
          }
        }
        return removed
      })
    },
  }
}
