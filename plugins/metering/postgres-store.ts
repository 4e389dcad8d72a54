// Metering on PostgreSQL, shared by every gateway on DATABASE_URL. A reservation is one
// conditional upsert on the month's row, so no interleaving of gateways can hold more than the
// limit; a settlement is one transaction (ledger entry keyed by request id, the month's and the
// day's aggregates, the hold removed) committed before the answer. Nothing is journaled locally:
// once the commit returns, the charge is in the database every gateway reads.
import { takeOwnerLease } from '../../proxy/owner-lease.ts'
import { batchedTurns } from './batched-turns.ts'
import type { Clock } from '../../proxy/clock.ts'
import type { PluginDatabase, Sql } from '../../proxy/database.ts'
import { DependencyUnavailableError } from '../../proxy/errors.ts'
import type { SharedEventOutbox } from '../../proxy/shared-events.ts'
import type { Hold } from './budget-holds.ts'
import type { BudgetRow, DayStats, LedgerEntry, ModelStats, Settled, StreamCheckpoint } from './ledger.ts'
import type { MeteringStore, Recovered } from './metering-store.ts'
import { meteringMigrations } from './postgres-schema.ts'

export interface PostgresMeteringOptions {
  readonly clock: Clock
  /** `pid:uuid` of this gateway: its holds and checkpoints are kept while its lease is renewed. */
  readonly owner: string
  /** How long a gateway that stopped renewing keeps its holds; renewed every third of it. */
  readonly leaseMs: number
  /** Usage events are recorded in the transaction that decides them. */
  readonly events?: SharedEventOutbox | undefined
}

interface BudgetRecord {
  used_micros: string
  reserved_micros: string
  overage_micros: string
  notified: number[]
}

const THRESHOLDS = [80, 90] as const
const LIMIT = 100
// A sweep's work per run is bounded; what is left waits for the next run.
const SWEEP_CHECKPOINTS = 100
const SWEEP_HOLDS = 1_000
// The most settlements, or holds, of one project committed together.
const MAX_BATCH = 64
// Settlements whose commit failed (the database away, a deadlock), kept to be retried, up to this many.
const MAX_UNSETTLED = 10_000

const dollars = (micros: number) => micros / 1e6

interface Settlement {
  readonly entry: LedgerEntry
  readonly limitMicros: number
}

const lockKey = (entry: LedgerEntry) => `${entry.month}\u0000${entry.day}\u0000${entry.model}`
const lockOrder = (a: LedgerEntry, b: LedgerEntry) => (lockKey(a) < lockKey(b) ? -1 : lockKey(a) > lockKey(b) ? 1 : 0)

function rowOf(record: BudgetRecord | undefined): BudgetRow {
  if (record === undefined) return { usedMicros: 0, reservedMicros: 0 }
  const overageMicros = Number(record.overage_micros)
  return {
    usedMicros: Number(record.used_micros),
    reservedMicros: Number(record.reserved_micros),
    ...(overageMicros === 0 ? {} : { overageMicros }),
    ...(record.notified.length === 0 ? {} : { notified: record.notified }),
  }
}

// The row's owner has no current lease: it was left by a gateway that is gone.
const LEASE_RUN_OUT = (table: string) =>
  `NOT EXISTS (SELECT 1 FROM metering_owners o WHERE o.owner = ${table}.owner AND o.expires_at >= $1)`

export async function postgresMeteringStore(database: PluginDatabase, options: PostgresMeteringOptions): Promise<MeteringStore> {
  const { clock, owner, leaseMs, events } = options
  await database.migrate(meteringMigrations)
  const inFlight = new Set<Promise<unknown>>()
  const unsettled = new Map<string, { entry: LedgerEntry; limitMicros: number }>()

  const lease = await takeOwnerLease(database, 'metering_owners', owner, leaseMs, clock)

  /**
   * Removes the request's hold and checkpoint, and charges the entry once; inside a transaction.
   * `alone`: the transaction holds this settlement only, so it may choose how it commits.
   */
  async function applySettlement(sql: Sql, entry: LedgerEntry, limitMicros: number, alone = false): Promise<BudgetRow> {
    const first = await sql.query<{ inserted: number; project_id: string | null; month: string | null; micros: string | null }>(
      `WITH inserted AS (
         INSERT INTO metering_ledger (id, project_id, month, entry) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO NOTHING RETURNING id
       ), released AS (
         DELETE FROM metering_holds WHERE request_id = $1 RETURNING project_id, month, micros
       ), dropped AS (
         DELETE FROM metering_checkpoints WHERE request_id = $1
       )
       SELECT (SELECT count(*) FROM inserted)::int AS inserted, r.project_id, r.month, r.micros
       FROM (SELECT 1) AS one LEFT JOIN released AS r ON true`,
      [entry.id, entry.projectId, entry.month, entry],
    )
    const { inserted, project_id: heldProject, month: heldMonth, micros } = first.rows[0]!
    const heldMicros = micros === null ? 0 : Number(micros)
    // A record that moves no money (a cache hit, an error before any token) takes no lock on the
    // month's row, and need not wait for the WAL to reach the disk: a crash of the database server
    // may lose the last fraction of a second of them, which only the hit and request counts would
    // miss. Budgets never depend on it.
    const movesMoney = heldMicros > 0 || entry.costMicros > 0 || (entry.overageMicros ?? 0) > 0
    if (alone && !movesMoney) await sql.query('SET LOCAL synchronous_commit = off')
    // From the month it was taken in: a request that began last month releases last month's hold.
    const sameRow = heldProject === entry.projectId && heldMonth === entry.month
    if (heldMicros > 0 && (!sameRow || inserted === 0)) {
      await sql.query(
        'UPDATE metering_budgets SET reserved_micros = greatest(0, reserved_micros - $3) WHERE project_id = $1 AND month = $2',
        [heldProject, heldMonth, heldMicros],
      )
    }
    if (inserted === 0) {
      const found = await sql.query<BudgetRecord>('SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $2', [entry.projectId, entry.month])
      return rowOf(found.rows[0])
    }
    const stats = [
      entry.projectId, entry.day, entry.model, entry.promptTokens + entry.completionTokens, entry.costMicros,
      entry.cacheHit ? 1 : 0, entry.cacheHit || entry.passthrough === true ? 0 : 1, entry.unpriced === undefined ? 0 : 1,
    ]
    const addStats = `WITH stats AS (
      INSERT INTO metering_model_days AS d (project_id, day, model, requests, tokens, cost_micros, hits, misses, unpriced)
      VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8)
      ON CONFLICT (project_id, day, model) DO UPDATE SET
        requests = d.requests + 1, tokens = d.tokens + excluded.tokens, cost_micros = d.cost_micros + excluded.cost_micros,
        hits = d.hits + excluded.hits, misses = d.misses + excluded.misses, unpriced = d.unpriced + excluded.unpriced
    )`
    const charged = movesMoney
      ? await sql.query<BudgetRecord>(
        `${addStats}
         INSERT INTO metering_budgets AS b (project_id, month, used_micros, overage_micros) VALUES ($1, $9, $5, $10)
         ON CONFLICT (project_id, month) DO UPDATE SET
           used_micros = b.used_micros + excluded.used_micros, overage_micros = b.overage_micros + excluded.overage_micros,
           reserved_micros = greatest(0, b.reserved_micros - $11)
         RETURNING *`,
        [...stats, entry.month, entry.overageMicros ?? 0, sameRow ? heldMicros : 0],
      )
      : await sql.query<BudgetRecord>(`${addStats} SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $9`, [...stats, entry.month])
    const row = rowOf(charged.rows[0])
    const notified = row.notified ?? []
    const crossed = THRESHOLDS.filter((t) => limitMicros > 0 && row.usedMicros * 100 >= limitMicros * t && !notified.includes(t))
    if (crossed.length === 0) return row
    const next = [...notified, ...crossed]
    await sql.query('UPDATE metering_budgets SET notified = $3 WHERE project_id = $1 AND month = $2', [entry.projectId, entry.month, next])
    for (const threshold of crossed) {
      await events?.emit(sql, 'usage.threshold_reached', entry.projectId, {
        period: entry.month, threshold_percent: threshold, budget_limit: dollars(limitMicros), budget_used: dollars(row.usedMicros),
      })
    }
    return { ...row, notified: next }
  }

  function settleNow(entry: LedgerEntry, limitMicros: number): Promise<BudgetRow> {
    return database.transaction((sql) => applySettlement(sql, entry, limitMicros, true))
  }

  const turnOptions = { maxBatch: MAX_BATCH, retryAlone: (err: unknown) => !(err instanceof DependencyUnavailableError) }

  // A project's settlements in turns (batched-turns.ts), a turn's in one transaction. They are
  // applied in the order of the rows they lock (the month's, then each day and model's), the same
  // on every gateway, so two gateways' turns wait for each other and never deadlock.
  const settleInTurn = batchedTurns<Settlement, BudgetRow>(async (batch) => {
    if (batch.length === 1) return [await settleNow(batch[0]!.entry, batch[0]!.limitMicros)]
    const order = batch.map((_, i) => i).sort((a, b) => lockOrder(batch[a]!.entry, batch[b]!.entry))
    return database.transaction(async (sql) => {
      const rows = new Array<BudgetRow>(batch.length)
      for (const i of order) rows[i] = await applySettlement(sql, batch[i]!.entry, batch[i]!.limitMicros)
      return rows
    })
  }, turnOptions)

  // A project's holds in turns too: each is still admitted by its own statement, against the
  // row as the holds before it in the turn left it.
  const reserveInTurn = batchedTurns<{ hold: Hold; limitMicros: number }, boolean>(async (batch) =>
    database.transaction(async (sql) => {
      const admitted: boolean[] = []
      for (const { hold, limitMicros } of batch) admitted.push(await admit(sql, hold, limitMicros))
      return admitted
    }), turnOptions)

  async function admit(sql: Sql, hold: Hold, limitMicros: number): Promise<boolean> {
    const admitted = await sql.query<{ admitted: number }>(
      `WITH admitted AS (
         INSERT INTO metering_budgets AS b (project_id, month, reserved_micros)
         SELECT $1::text, $2::text, $3::bigint WHERE $3::bigint <= $4::bigint
         ON CONFLICT (project_id, month) DO UPDATE SET reserved_micros = b.reserved_micros + excluded.reserved_micros
         WHERE b.used_micros + b.reserved_micros + excluded.reserved_micros <= $4::bigint
         RETURNING 1
       ), held AS (
         INSERT INTO metering_holds (request_id, project_id, month, micros, owner)
         SELECT $5::text, $1::text, $2::text, $3::bigint, $6::text FROM admitted RETURNING 1
       )
       SELECT count(*)::int AS admitted FROM held`,
      [hold.projectId, hold.month, hold.micros, limitMicros, hold.requestId, owner],
    )
    return admitted.rows[0]!.admitted === 1
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

  /** Settles the streams and releases the holds of gateways whose lease ran out. */
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
      const streams = gone.rows.sort((a, b) => `${a.entry.projectId}/${a.entry.month}`.localeCompare(`${b.entry.projectId}/${b.entry.month}`))
      // Streams first: a stream settled to its checkpoint releases its own hold with its charge.
      for (const { entry, limit_micros } of streams) await applySettlement(sql, entry, Number(limit_micros))
      const released = await sql.query<{ released: number }>(
        `WITH gone AS (
           DELETE FROM metering_holds WHERE request_id IN (
             SELECT request_id FROM metering_holds WHERE ${LEASE_RUN_OUT('metering_holds')}
             LIMIT ${SWEEP_HOLDS} FOR UPDATE SKIP LOCKED
           ) RETURNING project_id, month, micros
         ), sums AS (
           SELECT project_id, month, sum(micros) AS micros FROM gone GROUP BY project_id, month
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
    for (const [id, { entry, limitMicros }] of unsettled) {
      try {
        await settleNow(entry, limitMicros)
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

    async reserve(hold: Hold, limitMicros: number) {
      await lease.current()
      if (await reserveInTurn(hold.projectId, { hold, limitMicros })) return { ok: true }
      const row = await noteLimit(hold.projectId, hold.month, limitMicros, hold.micros) ?? await budget(hold.projectId, hold.month)
      return { ok: false, availableMicros: Math.max(0, limitMicros - row.usedMicros - row.reservedMicros) }
    },

    // The settlement removes the hold in its own transaction.
    release: () => undefined,

    async claimedMicros(projectId, month) {
      const row = await budget(projectId, month)
      return row.usedMicros + row.reservedMicros
    },

    async limitExceeded(projectId, month, limitMicros, requestedMicros) {
      await noteLimit(projectId, month, limitMicros, requestedMicros)
    },

    settle(entry, limitMicros): Settled {
      const committed = tracked(settleInTurn(entry.projectId, { entry, limitMicros }).catch((err: unknown) => {
        // The provider was paid: the charge is kept and retried, and its hold with it, so the
        // budget stays held until it is recorded.
        if (unsettled.size < MAX_UNSETTLED) unsettled.set(entry.id, { entry, limitMicros })
        throw err
      }))
      return { row: undefined, committed }
    },

    async checkpoint(progress: readonly StreamCheckpoint[]) {
      if (progress.length === 0) return
      await database.query(
        `INSERT INTO metering_checkpoints (request_id, owner, limit_micros, entry)
         SELECT p.id, p.owner, p.limit_micros, p.entry
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::jsonb[]) AS p(id, owner, limit_micros, entry)
         WHERE NOT EXISTS (SELECT 1 FROM metering_ledger l WHERE l.id = p.id)
         ON CONFLICT (request_id) DO UPDATE SET owner = excluded.owner, limit_micros = excluded.limit_micros, entry = excluded.entry`,
        [
          progress.map((p) => p.entry.id), progress.map(() => owner), progress.map((p) => p.limitMicros),
          progress.map((p) => JSON.stringify(p.entry)),
        ],
      )
    },

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

    async idle() {
      await Promise.allSettled([...inFlight])
    },

    async close() {
      await Promise.allSettled([...inFlight])
      // What it still holds (a settlement that could not be committed) is given back by the next sweep of any gateway.
      await lease.end()
    },
  }
}
