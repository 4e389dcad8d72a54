// The idempotency records in LMDB, keyed by project and key, with an index by creation time for
// the sweep. Every change is one LMDB transaction, so processes sharing the store see one owner
// per key, and a record committed here survives a kill -9. A run whose process is gone (its pid
// no longer exists) may be taken over.
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { isLiveOwner, SELF_OWNER } from '../../../proxy/stores/process-owner.ts'
import { decide, isExpired, RETENTION_MS, type IdempotencyRecord } from '../logic/decide.ts'
import type { IdempotencyRecords, RecordId } from './index.ts'

type RecordKey = [projectId: string, key: string]
type AgeKey = [createdAt: number, projectId: string, key: string]

interface LmdbRecordsOptions {
  /** A run older than this is abandoned even when its owner looks alive (a pid can be reused). */
  readonly inFlightLeaseMs: number
  /** This process, as owners are written; tests stand in for other processes. */
  readonly owner?: string
  readonly isLive?: (owner: string) => boolean
}

export function lmdbRecords(store: PluginStore, options: LmdbRecordsOptions): IdempotencyRecords {
  const { inFlightLeaseMs, owner = SELF_OWNER, isLive = isLiveOwner } = options
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
    get: async (id) => records.get(keyOf(id)),
    claim(id, { hash, now }, requestId, onRun) {
      return store.transaction(() => {
        const previous = records.get(keyOf(id))
        const decision = decide(previous, { hash, now, owner, isLive, leaseMs: inFlightLeaseMs })
        if (decision.kind === 'run') {
          put(id, { state: 'in_flight', hash, createdAt: now, requestId, owner }, previous)
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
    close: async () => undefined,
  }
}
