// The idempotency records on PostgreSQL, shared by every gateway on DATABASE_URL, so that a retry
// sent to another gateway is replayed there. A fresh key is claimed by one statement (an insert
// that does nothing on conflict): of gateways racing on it exactly one inserts. A key already
// recorded is decided under the row's lock, by the same rules as on LMDB. A process id means
// nothing on another host, so a run's owner is alive while its lease in idempotency_owners is
// renewed; a run whose owner stopped renewing is taken over by the next retry.
import { takeOwnerLease } from '../../../proxy/stores/owner-lease.ts'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../proxy/stores/database.ts'
import { decide, RETENTION_MS, type Decision, type IdempotencyRecord, type StoredAnswer } from '../logic/decide.ts'
import { idempotencyMigrations } from './postgres-schema.ts'
import type { IdempotencyRecords, RecordId } from './index.ts'

interface PostgresRecordsOptions {
  readonly clock: Clock
  /** `pid:uuid` of this gateway. */
  readonly owner: string
  /** How long a gateway that stopped renewing keeps its runs; renewed every third of it. */
  readonly ownerLeaseMs: number
  /** A run older than this is abandoned even when its owner still renews. */
  readonly inFlightLeaseMs: number
}

interface RecordRow {
  hash: string
  created_at: string
  request_id: string
  state: 'in_flight' | 'done'
  owner: string | null
  answer: StoredAnswer | null
}

// A key released between the insert and the read is claimed again, a bounded number of times.
const CLAIM_ATTEMPTS = 3
// Releases that failed (the database away), kept to be retried with the lease, up to this many.
const MAX_UNRELEASED = 10_000

function recordOf(row: RecordRow): IdempotencyRecord {
  const base = { hash: row.hash, createdAt: Number(row.created_at), requestId: row.request_id }
  return row.state === 'done' ? { ...base, state: 'done', answer: row.answer! } : { ...base, state: 'in_flight', owner: row.owner! }
}

export async function postgresRecords(database: PluginDatabase, options: PostgresRecordsOptions): Promise<IdempotencyRecords> {
  const { clock, owner, ownerLeaseMs, inFlightLeaseMs } = options
  await database.migrate(idempotencyMigrations)
  const unreleased = new Map<string, { readonly id: RecordId; readonly requestId: string }>()

  const lease = await takeOwnerLease(database, 'idempotency_owners', owner, ownerLeaseMs, clock)

  async function remove(id: RecordId, requestId: string): Promise<void> {
    await database.query('DELETE FROM idempotency_records WHERE project_id = $1 AND key = $2 AND request_id = $3', [id.projectId, id.key, requestId])
  }

  // While the database was away a run could not free its key: freed now, so that its retry runs.
  async function retryReleases(): Promise<void> {
    for (const [name, { id, requestId }] of unreleased) {
      await remove(id, requestId)
      unreleased.delete(name)
    }
  }

  let renewal: Promise<void> = Promise.resolve()
  const renewer = setInterval(() => {
    renewal = lease
      .renew()
      .then(retryReleases)
      .catch(() => undefined)
  }, lease.renewEveryMs)
  renewer.unref()

  async function claimIn(sql: Sql, id: RecordId, hash: string, now: number, requestId: string, onRun: () => void): Promise<Decision> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const inserted = await sql.query(
        `INSERT INTO idempotency_records (project_id, key, hash, created_at, request_id, state, owner)
         VALUES ($1, $2, $3, $4, $5, 'in_flight', $6)
         ON CONFLICT (project_id, key) DO NOTHING RETURNING 1`,
        [id.projectId, id.key, hash, now, requestId, owner],
      )
      if (inserted.rowCount === 1) {
        onRun()
        return { kind: 'run', takenOver: false }
      }
      const found = await sql.query<RecordRow & { owner_live: boolean }>(
        `SELECT r.*, EXISTS (SELECT 1 FROM idempotency_owners o WHERE o.owner = r.owner AND o.expires_at >= $3) AS owner_live
         FROM idempotency_records r WHERE r.project_id = $1 AND r.key = $2 FOR UPDATE OF r`,
        [id.projectId, id.key, now],
      )
      const row = found.rows[0]
      if (row === undefined) continue
      const decision = decide(recordOf(row), { hash, now, owner, isLive: () => row.owner_live, leaseMs: inFlightLeaseMs })
      if (decision.kind === 'run') {
        await sql.query(
          `UPDATE idempotency_records SET hash = $3, created_at = $4, request_id = $5, state = 'in_flight', owner = $6, answer = NULL
           WHERE project_id = $1 AND key = $2`,
          [id.projectId, id.key, hash, now, requestId, owner],
        )
        onRun()
      }
      return decision
    }
    // Claimed and released over and over meanwhile: another gateway is busy with this key.
    return { kind: 'busy' }
  }

  return {
    async get(id) {
      const found = await database.query<RecordRow>('SELECT * FROM idempotency_records WHERE project_id = $1 AND key = $2', [id.projectId, id.key])
      return found.rows[0] === undefined ? undefined : recordOf(found.rows[0])
    },

    async claim(id, { hash, now }, requestId, onRun) {
      await lease.current()
      return database.transaction((sql) => claimIn(sql, id, hash, now, requestId, onRun))
    },

    async finish(id, requestId, answer) {
      const done = await database.query(
        `UPDATE idempotency_records SET state = 'done', owner = NULL, answer = $4
         WHERE project_id = $1 AND key = $2 AND request_id = $3 AND state = 'in_flight'`,
        [id.projectId, id.key, requestId, JSON.stringify(answer)],
      )
      return done.rowCount === 1
    },

    async release(id, requestId) {
      try {
        await remove(id, requestId)
      } catch (err) {
        if (unreleased.size < MAX_UNRELEASED) unreleased.set(`${id.projectId}\u0000${id.key}\u0000${requestId}`, { id, requestId })
        throw err
      }
    },

    async sweep(now, limit) {
      const swept = await database.query<{ removed: number }>(
        `WITH gone AS (
           DELETE FROM idempotency_records WHERE (project_id, key) IN (
             SELECT project_id, key FROM idempotency_records WHERE created_at <= $1
             ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
           ) RETURNING 1
         )
         SELECT count(*)::int AS removed FROM gone`,
        [now - RETENTION_MS, limit],
      )
      await database.query(
        `DELETE FROM idempotency_owners o WHERE o.expires_at < $1
         AND NOT EXISTS (SELECT 1 FROM idempotency_records r WHERE r.owner = o.owner AND r.state = 'in_flight')`,
        [now],
      )
      return swept.rows[0]!.removed
    },

    async close() {
      clearInterval(renewer)
      await renewal
      await retryReleases().catch(() => undefined)
      await lease.end()
    },
  }
}
