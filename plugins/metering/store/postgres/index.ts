// Metering on PostgreSQL, shared by every gateway on DATABASE_URL. Holds are carved in memory from
// a budget lease each gateway keeps on a month (../leases.ts): a row of metering_holds owned
// by the gateway, grown in a transaction that locks the month's row, so no interleaving of
// gateways can hold more than the limit, and taken over with the gateway's other rows when its
// owner lease runs out. A settlement is a transaction (ledger entry keyed by request id, the
// month's and the day's aggregates, its lease shrunk by its hold) committed before the answer. A
// project's settlements are committed in turns, those that queued behind one commit sharing the next.
// Nothing is journaled locally: once the commit returns, the charge is in the database every
// gateway reads.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import { takeOwnerLease } from '../../../../proxy/stores/owner-lease.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/shared-events.ts'
import { batchedTurns } from '../../../../proxy/stores/batched-turns.ts'
import { leasedHolds, type LeaseStore } from '../leases.ts'
import type { Hold, KeyBudget } from '../lmdb/holds.ts'
import { availableMicros, type BudgetRow, type DayStats, type LeaseResult, type LedgerEntry, type ModelStats, type Settled, type StreamCheckpoint } from '../lmdb/ledger.ts'
import type { MeteringStore, Recovered } from '../index.ts'
import { meteringMigrations } from './schema.ts'
import { mergeSpendRows } from '../../logic/spend-breakdown.ts'
import { rowOf, settleBatch, type BudgetRecord, type Settlement } from './settlement.ts'

interface PostgresMeteringOptions {
  readonly clock: Clock
  /** `pid:uuid` of this gateway: its holds and checkpoints are kept while its lease is renewed. */
  readonly owner: string
  /** How long a gateway that stopped renewing keeps its holds; renewed every third of it. */
  readonly leaseMs: number
  /** Usage events are recorded in the transaction that decides them. */
  readonly events?: SharedEventOutbox | undefined
  /** Where background work goes, so that a stop waits for it. */
  readonly track?: ((work: Promise<unknown>) => void) | undefined
}

const LIMIT = 100
// A sweep's work per run is bounded; what is left waits for the next run.
const SWEEP_CHECKPOINTS = 100
const SWEEP_HOLDS = 1_000
// The most settlements, or holds, of one project committed together.
const MAX_BATCH = 64
// Settlements whose commit failed (the database away, a deadlock), kept to be retried, up to this many.
const MAX_UNSETTLED = 10_000

const dollars = (micros: number) => micros / 1e6

interface Reservation {
  readonly hold: Hold
  readonly limitMicros: number
}

/** A hold of a key with its own budget, held, or refused by the project's budget or the key's. */
type Admission = 'held' | 'project' | 'key'

// The row's owner has no current lease: it was left by a gateway that is gone.
const LEASE_RUN_OUT = (table: string) =>
  `NOT EXISTS (SELECT 1 FROM metering_owners o WHERE o.owner = ${table}.owner AND o.expires_at >= $1)`

export async function postgresMeteringStore(database: PluginDatabase, options: PostgresMeteringOptions): Promise<MeteringStore> {
  const { clock, owner, leaseMs, events } = options
  await database.migrate(meteringMigrations)
  const inFlight = new Set<Promise<unknown>>()
  const unsettled = new Map<string, Settlement>()
  const leaseId = (projectId: string, month: string) => `lease/${owner}/${projectId}/${month}`

  const budgetLeases: LeaseStore = {
    async growLease(projectId, month, needMicros, limitMicros, spare): Promise<LeaseResult> {
      const grown = await database.transaction(async (sql): Promise<LeaseResult> => {
        await sql.query('INSERT INTO metering_budgets (project_id, month) VALUES ($1, $2) ON CONFLICT DO NOTHING', [projectId, month])
        const row = rowOf((await sql.query<BudgetRecord>('SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $2 FOR UPDATE', [projectId, month])).rows[0])
        const available = availableMicros(row, limitMicros)
        if (needMicros > available) return { availableMicros: Math.max(0, available) }
        const grantedMicros = needMicros + spare(available - needMicros)
        await sql.query('UPDATE metering_budgets SET reserved_micros = reserved_micros + $3 WHERE project_id = $1 AND month = $2', [projectId, month, grantedMicros])
        await sql.query(
          `INSERT INTO metering_holds (request_id, project_id, month, micros, owner) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (request_id) DO UPDATE SET micros = metering_holds.micros + excluded.micros`,
          [leaseId(projectId, month), projectId, month, grantedMicros, owner],
        )
        return { grantedMicros }
      })
      if ('availableMicros' in grown) await noteLimit(projectId, month, limitMicros, needMicros)
      return grown
    },
    // Asked before the transaction: if it fails, what was taken from memory stays reserved in the
    // database until this gateway's rows are taken over, never the other way round.
    async returnLease(projectId, month, micros) {
      const unused = micros()
      if (unused <= 0) return 0
      return database.transaction(async (sql) => {
        await sql.query('SELECT 1 FROM metering_budgets WHERE project_id = $1 AND month = $2 FOR UPDATE', [projectId, month])
        const given = await sql.query<{ micros: string }>(
          `WITH locked AS (
             SELECT request_id, least(micros, $2::bigint) AS taken, micros - least(micros, $2::bigint) AS left_micros FROM metering_holds WHERE request_id = $1 FOR UPDATE
           ), kept AS (
             UPDATE metering_holds h SET micros = l.left_micros FROM locked l WHERE h.request_id = l.request_id AND l.left_micros > 0
           ), gone AS (
             DELETE FROM metering_holds h USING locked l WHERE h.request_id = l.request_id AND l.left_micros = 0
           ), given AS (
             UPDATE metering_budgets SET reserved_micros = greatest(0, reserved_micros - (SELECT coalesce(sum(taken), 0) FROM locked))
             WHERE project_id = $3 AND month = $4
           )
           SELECT coalesce(sum(taken), 0)::bigint AS micros FROM locked`,
          [leaseId(projectId, month), unused, projectId, month],
        )
        return Number(given.rows[0]!.micros)
      })
    },
  }

  /** Gives back every lease this gateway has in the database (after its owner lease ran out, they may be taken over). */
  async function dropLeases(): Promise<void> {
    await database.transaction(async (sql) => {
      await sql.query(
        `WITH gone AS (
           DELETE FROM metering_holds WHERE owner = $1 AND request_id LIKE 'lease/%' RETURNING project_id, month, micros
         ), sums AS (
           SELECT project_id, month, sum(micros) AS micros FROM gone GROUP BY project_id, month
         )
         UPDATE metering_budgets AS b SET reserved_micros = greatest(0, b.reserved_micros - sums.micros)
         FROM sums WHERE b.project_id = sums.project_id AND b.month = sums.month`,
        [owner],
      )
    })
  }

  const leases = leasedHolds(budgetLeases, {
    // A hold is carved only while this gateway's lease is fresh, so its budget lease is not taken over meanwhile.
    ready: () => (lease.fresh() ? undefined : lease.current()),
    track: (work) => (options.track ?? tracked)(work.catch(() => undefined)),
  })
  const lease = await takeOwnerLease(database, 'metering_owners', owner, leaseMs, clock, async () => {
    leases.lapse()
    await dropLeases()
  })

  /** Settles in one transaction; one that moves no money need not wait for the WAL to reach the disk. */
  function settleNow(batch: readonly Settlement[]): Promise<readonly BudgetRow[]> {
    return database.transaction(async (sql) => {
      const settled = await settleBatch(sql, batch, events)
      // A crash of the database server may then lose the last fraction of a second of cache
      // hits and errors, which only the hit and request counts would miss. Budgets never depend on it.
      if (!settled.movesMoney) await sql.query('SET LOCAL synchronous_commit = off')
      return settled.rows
    })
  }

  // A project's settlements and holds in turns (batched-turns.ts), a turn's in one transaction.
  const turnOptions = { maxBatch: MAX_BATCH, retryAlone: (err: unknown) => !(err instanceof DependencyUnavailableError) }
  const settleInTurn = batchedTurns(settleNow, turnOptions)
  const reserveKeyedInTurn = batchedTurns<Reservation, Admission>((batch) => database.transaction((sql) => admit(sql, batch)), turnOptions)
  // First checkpoints of all projects in turns: those admitted while one insert commits go in the next.
  const startInTurn = batchedTurns<readonly StreamCheckpoint[], undefined>(async (batches) => {
    await insertCheckpoints(batches.flat(), 'keep')
    return batches.map(() => undefined)
  }, turnOptions)

  /** Checkpoints of streams not yet settled; a stream's earlier checkpoint is kept or replaced. */
  async function insertCheckpoints(progress: readonly StreamCheckpoint[], earlier: 'keep' | 'replace'): Promise<void> {
    if (progress.length === 0) return
    const onConflict = earlier === 'keep'
      ? 'DO NOTHING'
      : 'DO UPDATE SET owner = excluded.owner, limit_micros = excluded.limit_micros, entry = excluded.entry'
    await database.query(
      `INSERT INTO metering_checkpoints (request_id, owner, limit_micros, entry)
       SELECT p.id, p.owner, p.limit_micros, p.entry
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::jsonb[]) AS p(id, owner, limit_micros, entry)
       WHERE NOT EXISTS (SELECT 1 FROM metering_ledger l WHERE l.id = p.id)
       ON CONFLICT (request_id) ${onConflict}`,
      [
        progress.map((p) => p.entry.id), progress.map(() => owner), progress.map((p) => p.limitMicros),
        progress.map((p) => JSON.stringify(p.entry)),
      ],
    )
  }

  /**
   * Holds, in order, requests of keys with budgets of their own (budget leases are kept by project,
   * so these are held one by one, in the store).
   */
  async function admit(sql: Sql, batch: readonly Reservation[]): Promise<Admission[]> {
    const admitted: Admission[] = []
    for (const reservation of batch) admitted.push(await holdWithKey(sql, reservation, reservation.hold.key!))
    return admitted
  }

  /**
   * Holds one request of a key with its own budget: of the key's month row, then of the project's,
   * each only if it has room, or of neither. The key's row is taken first, in the order a
   * settlement takes month rows (by holder id: `key_…` before `proj_…`), so the two never deadlock.
   */
  async function holdWithKey(sql: Sql, { hold: held, limitMicros }: Reservation, key: KeyBudget): Promise<Admission> {
    const take = (holder: string, limit: number) => sql.query(
      `INSERT INTO metering_budgets AS b (project_id, month, reserved_micros)
       SELECT $1::text, $2::text, $3::bigint WHERE $3::bigint <= $4::bigint
       ON CONFLICT (project_id, month) DO UPDATE SET reserved_micros = b.reserved_micros + excluded.reserved_micros
       WHERE b.used_micros + b.reserved_micros + excluded.reserved_micros <= $4::bigint`,
      [holder, held.month, held.micros, limit],
    )
    if ((await take(key.keyId, key.limitMicros)).rowCount !== 1) return 'key'
    if ((await take(held.projectId, limitMicros)).rowCount !== 1) {
      await sql.query('UPDATE metering_budgets SET reserved_micros = greatest(0, reserved_micros - $3) WHERE project_id = $1 AND month = $2', [key.keyId, held.month, held.micros])
      return 'project'
    }
    await sql.query(
      'INSERT INTO metering_holds (request_id, project_id, month, micros, owner, key_id) VALUES ($1, $2, $3, $4, $5, $6)',
      [held.requestId, held.projectId, held.month, held.micros, owner, key.keyId],
    )
    return 'held'
  }

  async function reserveKeyed(hold: Hold, key: KeyBudget, limitMicros: number) {
    await lease.current()
    const admission = await reserveKeyedInTurn(hold.projectId, { hold, limitMicros })
    if (admission === 'held') return { ok: true } as const
    if (admission === 'key') {
      const row = await budget(key.keyId, hold.month)
      return { ok: false, availableMicros: Math.max(0, availableMicros(row, key.limitMicros)), byKey: true } as const
    }
    const row = await noteLimit(hold.projectId, hold.month, limitMicros, hold.micros) ?? await budget(hold.projectId, hold.month)
    return { ok: false, availableMicros: Math.max(0, availableMicros(row, limitMicros)) } as const
  }

  function tracked<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work)
    const done = () => inFlight.delete(work)
    work.then(done, done)
    return work
  }

  async function noteLimit(projectId: string, month: string, limitMicros: number, requestedMicros: number): Promise<BudgetRow | undefined> {
    return database.transaction(async (sql) => {
      const noted = await sql.query<BudgetRecord>(
        `INSERT INTO metering_budgets AS b (project_id, month, notified) VALUES ($1, $2, ARRAY[${LIMIT}])
         ON CONFLICT (project_id, month) DO UPDATE SET notified = b.notified || ${LIMIT}
         WHERE NOT ${LIMIT} = ANY(b.notified)
         RETURNING *`,
        [projectId, month],
      )
      if (noted.rows[0] === undefined) return undefined
      const row = rowOf(noted.rows[0])
      await events?.emit(sql, 'usage.limit_exceeded', projectId, {
        period: month, budget_limit: dollars(limitMicros), budget_used: dollars(row.usedMicros),
        budget_reserved: dollars(row.reservedMicros), requested_cost: dollars(requestedMicros),
      })
      return row
    })
  }

  async function budget(projectId: string, month: string): Promise<BudgetRow> {
    const found = await database.query<BudgetRecord>('SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $2', [projectId, month])
    return rowOf(found.rows[0])
  }

  /** Settles the streams and releases the holds of gateways whose lease ran out, and drops checkpoints of settled streams. */
  async function sweep(now: number): Promise<{ recovered: number; released: number }> {
    return database.transaction(async (sql) => {
      // Gateways sweeping at once could lock the month rows in different orders: one sweeps, the
      // others skip this round.
      const turn = await sql.query<{ mine: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('tollgate metering sweep')) AS mine`)
      if (!turn.rows[0]!.mine) return { recovered: 0, released: 0 }
      const gone = await sql.query<{ entry: LedgerEntry; limit_micros: string }>(
        `DELETE FROM metering_checkpoints WHERE request_id IN (
           SELECT request_id FROM metering_checkpoints WHERE ${LEASE_RUN_OUT('metering_checkpoints')}
           LIMIT ${SWEEP_CHECKPOINTS} FOR UPDATE SKIP LOCKED
         ) RETURNING entry, limit_micros`,
        [now],
      )
      const streams = gone.rows
      // Streams first: a stream settled to its checkpoint releases its own hold with its charge.
      await settleBatch(sql, streams.map(({ entry, limit_micros }) => ({ entry, limitMicros: Number(limit_micros) })), events)
      // A checkpoint whose insert raced its stream's settlement outlived it: the ledger has the stream.
      await sql.query(
        `DELETE FROM metering_checkpoints WHERE request_id IN (
           SELECT c.request_id FROM metering_checkpoints c JOIN metering_ledger l ON l.id = c.request_id
           LIMIT ${SWEEP_CHECKPOINTS} FOR UPDATE OF c SKIP LOCKED
         )`,
      )
      const released = await sql.query<{ released: number }>(
        `WITH gone AS (
           DELETE FROM metering_holds WHERE request_id IN (
             SELECT request_id FROM metering_holds WHERE ${LEASE_RUN_OUT('metering_holds')}
             LIMIT ${SWEEP_HOLDS} FOR UPDATE SKIP LOCKED
           ) RETURNING project_id, key_id, month, micros
         ), sums AS (
           SELECT holder AS project_id, month, sum(micros) AS micros
           FROM (SELECT project_id AS holder, month, micros FROM gone UNION ALL SELECT key_id, month, micros FROM gone WHERE key_id IS NOT NULL) AS h
           GROUP BY holder, month
         ), given AS (
           UPDATE metering_budgets AS b SET reserved_micros = greatest(0, b.reserved_micros - sums.micros)
           FROM sums WHERE b.project_id = sums.project_id AND b.month = sums.month
         )
         SELECT count(*)::int AS released FROM gone`,
        [now],
      )
      await sql.query(
        `DELETE FROM metering_owners AS o WHERE o.expires_at < $1
         AND NOT EXISTS (SELECT 1 FROM metering_holds h WHERE h.owner = o.owner)
         AND NOT EXISTS (SELECT 1 FROM metering_checkpoints c WHERE c.owner = o.owner)`,
        [now],
      )
      return { recovered: streams.length, released: released.rows[0]!.released }
    })
  }

  /** Commits the settlements that failed before; stops at the first the database is away for. */
  async function retryUnsettled(): Promise<void> {
    for (const [id, settlement] of unsettled) {
      try {
        await settleNow([settlement])
        unsettled.delete(id)
      } catch (err) {
        if (err instanceof DependencyUnavailableError) throw err
      }
    }
  }

  return {
    async recover(): Promise<Recovered> {
      await lease.renew()
      await retryUnsettled()
      const { recovered, released } = await sweep(clock.now())
      return { released, recovered, replayed: 0, unreadable: 0 }
    },

    recoverEveryMs: lease.renewEveryMs,

    reserve(hold: Hold, limitMicros: number) {
      return hold.key === undefined ? leases.reserve(hold, limitMicros) : reserveKeyed(hold, hold.key, limitMicros)
    },

    // The settlement shrinks the hold's lease in its own transaction.
    release: () => undefined,

    settle(entry, limitMicros, { hold }): Settled {
      const leased = hold === undefined ? undefined : leases.settling(hold)
      const settlement: Settlement = leased === undefined ? { entry, limitMicros } : { entry, limitMicros, lease: { id: leaseId(entry.projectId, leased.month), ...leased } }
      const committed = tracked(settleInTurn(entry.projectId, settlement).catch((err: unknown) => {
        // The provider was paid: the charge is kept and retried, and its hold with it, so the
        // budget stays held until it is recorded.
        if (unsettled.size < MAX_UNSETTLED) unsettled.set(entry.id, settlement)
        throw err
      }))
      return { row: undefined, committed }
    },

    checkpoint: (progress) => insertCheckpoints(progress, 'replace'),

    // Committed in turns, not before the provider is asked: a crash in the moment before the
    // commit leaves the stream to its hold alone (see docs/budgets-and-metering.md, Budgets on PostgreSQL).
    startStreams: (progress) => tracked(startInTurn('streams', progress)),

    async entry(id) {
      const found = await database.query<{ entry: LedgerEntry }>('SELECT entry FROM metering_ledger WHERE id = $1', [id])
      return found.rows[0]?.entry
    },

    budget,

    async dayStats(projectId, range) {
      const found = await database.query<{ day: string; model: string; requests: string; tokens: string; cost_micros: string; hits: string; misses: string; unpriced: string }>(
        'SELECT * FROM metering_model_days WHERE project_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, model',
        [projectId, range.start, range.end],
      )
      const days = new Map<string, { hits: number; misses: number; models: Record<string, ModelStats> }>()
      for (const record of found.rows) {
        const day = days.get(record.day) ?? { hits: 0, misses: 0, models: {} }
        day.hits += Number(record.hits)
        day.misses += Number(record.misses)
        const unpriced = Number(record.unpriced)
        day.models[record.model] = {
          requests: Number(record.requests), tokens: Number(record.tokens), costMicros: Number(record.cost_micros),
          ...(unpriced === 0 ? {} : { unpriced }),
        }
        days.set(record.day, day)
      }
      return days as ReadonlyMap<string, DayStats>
    },

    async spend(projectId, range, dimension) {
      const found = await database.query<{ value: string; requests: string; tokens: string; cost_micros: string }>(
        `SELECT value, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_micros) AS cost_micros FROM metering_spend_days
         WHERE project_id = $1 AND dimension = $2 AND day BETWEEN $3 AND $4 GROUP BY value`,
        [projectId, dimension, range.start, range.end],
      )
      return mergeSpendRows(found.rows.map((record) => ({
        value: record.value, requests: Number(record.requests), tokens: Number(record.tokens), costMicros: Number(record.cost_micros),
      })))
    },

    async idle() {
      await Promise.allSettled([...inFlight])
    },

    async close() {
      await leases.close().catch(() => undefined)
      await Promise.allSettled([...inFlight])
      // What it still holds (a settlement that could not be committed) is given back by the next sweep of any gateway.
      await lease.end()
    },
  }
}
