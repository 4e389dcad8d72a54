// The metering store on LMDB (index.ts wraps it). Money is kept in integer micro-dollars so
// sums are exact. Every write is one LMDB transaction, which also serializes processes sharing the
// environment: a reservation can never see a stale budget, and a settled request is written
// exactly once (its ledger entry is keyed by request id and checked inside the same transaction).
// A settlement is journaled first (settlement-journal.ts) and known to this process at once; its
// commit follows.
import type { EventOutbox } from '../../../../proxy/stores/events.ts'
import type { Database, Key } from 'lmdb'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { SELF_OWNER } from '../../../../proxy/stores/process-owner.ts'
import { addSpend, mergeSpendRows, spendOf, ZERO_SPEND, type SpendDimension, type SpendFigures, type SpendRow } from '../../logic/spend-breakdown.ts'
import { deadJournals, openJournal, removeJournal, type JournalLine, type JournalMark } from './settlement-journal.ts'

export interface BudgetRow {
  readonly usedMicros: number
  readonly reservedMicros: number
  /** What providers counted beyond the holds this month: recorded, never charged (see docs/budgets-and-metering.md). */
  readonly overageMicros?: number
  /** Usage events already sent this month (80, 90 for the thresholds, 100 for the limit): each fires once. */
  readonly notified?: readonly number[]
}

export interface Reservation {
  readonly projectId: string
  readonly month: string
  readonly micros: number
  /** The request's key, when the key has a budget of its own that the hold counts against too. */
  readonly keyId?: string
  /** `pid:bootTime` of the process holding it, so a restart can release a dead process's holds. */
  readonly owner: string
}

export interface LedgerEntry {
  readonly id: string
  readonly projectId: string
  readonly keyId: string
  readonly at: string
  readonly month: string
  readonly day: string
  readonly provider: string
  readonly model: string
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, read from the provider's prompt cache; absent when it reported none. */
  readonly cachedInputTokens?: number
  /** Of promptTokens, written to the provider's prompt cache; absent when it reported none. */
  readonly cacheWriteTokens?: number
  /** What was charged: the provider's count at list price, never more than the request's hold. */
  readonly costMicros: number
  /** The provider's count beyond the hold, when there was any. */
  readonly overageMicros?: number
  readonly cacheHit: boolean
  readonly outcome: string
  /** Forwarded as it was by the provider pass-through: no cache was asked, so neither a hit nor a miss. */
  readonly passthrough?: true
  /**
   * Its cost is not known, so nothing was charged: no usage was found in the answer, or its
   * model has no price. Counted apart so that such requests are never mistaken for free ones.
   */
  readonly unpriced?: 'no_usage' | 'no_price'
  /** The client's end user: OpenAI's `user`, Anthropic's `metadata.user_id`. */
  readonly user?: string
  /** The request's x-gateway-tags, each once. */
  readonly tags?: readonly string[]
}

/** A stream's progress, written while it runs, so a crash settles it to what was generated. */
export interface StreamCheckpoint {
  readonly entry: LedgerEntry
  /** `pid:bootId` of the process running the stream. */
  readonly owner: string
  readonly limitMicros: number
}

export interface ModelStats {
  readonly requests: number
  readonly tokens: number
  readonly costMicros: number
  /** Requests among them whose cost is unknown (LedgerEntry.unpriced). */
  readonly unpriced?: number
}

interface ModelDayStats extends ModelStats {
  readonly hits: number
  readonly misses: number
}

const ZERO_STATS: ModelDayStats = { requests: 0, tokens: 0, costMicros: 0, hits: 0, misses: 0 }

export interface DayStats {
  readonly hits: number
  readonly misses: number
  readonly models: Readonly<Record<string, ModelStats>>
}

/** A hold carved from its process's budget lease: the month it was taken in and its amount. */
export interface LeasedHold {
  readonly month: string
  readonly micros: number
}

/** What a lease asked of the month got: the amount added to it, or what was left when it could not be. */
export type LeaseResult = { readonly grantedMicros: number } | { readonly availableMicros: number }

/** `byKey`: refused by the key's own budget, not its project's. */
export type ReserveResult = { readonly ok: true } | { readonly ok: false; readonly availableMicros: number; readonly byKey?: true }

const EMPTY_ROW: BudgetRow = { usedMicros: 0, reservedMicros: 0 }

/** What a month has left for new holds: its limit less what is spent and what is held; the one coverage figure. */
export function availableMicros(row: BudgetRow, limitMicros: number): number {
  return limitMicros - row.usedMicros - row.reservedMicros
}

export function toMicros(dollars: number): number {
  return Math.round(dollars * 1e6)
}

const THRESHOLDS = [80, 90] as const
const LIMIT = 100
const dollars = (micros: number) => micros / 1e6

interface QueuedSettlement extends JournalLine {
  /** Where it was journaled; absent when the journal could not be written. */
  readonly mark: JournalMark | undefined
  /** Where the stream's first checkpoint was journaled, done with once this settlement is committed. */
  readonly startMark: JournalMark | undefined
  readonly resolve: (row: BudgetRow) => void
  readonly reject: (error: unknown) => void
}

interface InFlightBatch {
  /** An entry the transaction wrote: readable once its commit is. */
  marker: string | undefined
  readonly micros: Map<string, number>
}

export interface Settled {
  /**
   * The month's row as this entry leaves it, known at once when the settlement was journaled;
   * undefined when it was not, and only the commit makes it durable.
   */
  readonly row: BudgetRow | undefined
  /** Resolves with the row once the entry is committed to the ledger. */
  readonly committed: Promise<BudgetRow>
}

function addStats(a: ModelDayStats, b: ModelDayStats): ModelDayStats {
  const unpriced = (a.unpriced ?? 0) + (b.unpriced ?? 0)
  return {
    requests: a.requests + b.requests, tokens: a.tokens + b.tokens, costMicros: a.costMicros + b.costMicros, hits: a.hits + b.hits, misses: a.misses + b.misses,
    ...(unpriced === 0 ? {} : { unpriced }),
  }
}

/** The day figures one transaction adds to: by model, and by key, user and tag. */
interface DayFigures {
  readonly models: Map<string, ModelDayStats>
  readonly spend: Map<string, SpendFigures>
}

const newDayFigures = (): DayFigures => ({ models: new Map(), spend: new Map() })

// The value comes last, so any text it holds (a user id with slashes) cannot reach another row.
const spendKeyOf = (projectId: string, day: string, dimension: SpendDimension, value: string) => `${projectId}/${day}/${dimension}/${value}`

/** The budget rows one transaction touches: read once, written once at its end. */
class RowCache {
  readonly #rows = new Map<string, BudgetRow>()
  readonly #changed = new Set<string>()
  readonly #budgets: Database<BudgetRow, Key>

  constructor(budgets: Database<BudgetRow, Key>) {
    this.#budgets = budgets
  }

  get(key: string): BudgetRow {
    let row = this.#rows.get(key)
    if (row === undefined) {
      row = this.#budgets.get(key) ?? EMPTY_ROW
      this.#rows.set(key, row)
    }
    return row
  }

  set(key: string, row: BudgetRow): void {
    this.#rows.set(key, row)
    this.#changed.add(key)
  }

  writeAll(): void {
    for (const key of this.#changed) this.#budgets.put(key, this.#rows.get(key)!)
  }

  /** The rows written, by key. */
  *written(): Iterable<[string, BudgetRow]> {
    for (const key of this.#changed) yield [key, this.#rows.get(key)!]
  }
}

/**
 * `alone`: this process is the only one writing the store (no --workers), so the month rows it
 * committed are the stored ones, and are kept here instead of read back on every request.
 */
export function createLedger(store: PluginStore, events?: EventOutbox, owner = SELF_OWNER, alone = false) {
  const budgets = store.open<BudgetRow>('budgets', { records: true })
  const reservations = store.open<Reservation>('reservations', { records: true })
  const entries = store.open<LedgerEntry>('ledger', { records: true })
  const modelDays = store.open<ModelDayStats>('model-day-stats', { records: true })
  const checkpoints = store.open<StreamCheckpoint>('stream-checkpoints', { records: true })
  const spendDays = store.open<SpendFigures>('spend-day-stats', { records: true })
  const rowKey = (projectId: string, month: string) => `${projectId}/${month}`
  // Beside the requests' own reservations: a request id never starts with it.
  const leaseKey = (holder: string, projectId: string, month: string) => `lease/${holder}/${projectId}/${month}`
  let queued: QueuedSettlement[] = []
  let lastCommit: Promise<unknown> = Promise.resolve()
  const journal = openJournal(store.directory, owner)
  // Settled here and not yet committed: what this process counts on top of the stored rows.
  // Charges not yet in a transaction are counted as they are; those of a transaction that ran
  // only until its commit is visible (its marker entry readable), which comes a moment before the
  // commit's promise settles: counting them until then would count them twice.
  const pendingEntries = new Map<string, LedgerEntry>()
  const unbatchedMicros = new Map<string, number>()
  const inFlight = new Set<InFlightBatch>()
  // Streams whose first checkpoint this process recorded and has not settled: the journal line it
  // went to, or `stored` when the journal could not be written and it went to the store instead.
  const starts = new Map<string, JournalMark | 'stored'>()
  // The month rows as this process alone last committed them: set from what a settling
  // transaction wrote once its commit settles (when its in-flight charges stop counting), and read
  // from the store only while no transaction is in flight, so that no charge counts twice.
  // Another write to a row (a limit's notice, a recovery) drops it, to be read again.
  const committedRows = alone ? new Map<string, BudgetRow>() : undefined

  function addMicros(micros: Map<string, number>, key: string, delta: number): void {
    const sum = (micros.get(key) ?? 0) + delta
    if (sum === 0) micros.delete(key)
    else micros.set(key, sum)
  }

  function budget(projectId: string, month: string): BudgetRow {
    const key = rowKey(projectId, month)
    const known = committedRows?.get(key)
    if (known !== undefined) return withPending(key, known, false)
    const row = budgets.get(key) ?? EMPTY_ROW
    if (committedRows !== undefined && inFlight.size === 0) committedRows.set(key, row)
    return withPending(key, row, true)
  }

  /**
   * The row with what is settled and not yet committed counted as used. A stored row read while a
   * transaction is in flight may already hold its charges: `stored` checks for that.
   */
  function withPending(key: string, row: BudgetRow, stored: boolean): BudgetRow {
    let pending = unbatchedMicros.get(key) ?? 0
    for (const batch of inFlight) {
      const micros = batch.micros.get(key)
      if (micros !== undefined && !(stored && entries.doesExist(batch.marker!))) pending += micros
    }
    return pending === 0 ? row : { ...row, usedMicros: row.usedMicros + pending }
  }

  /** After a write to month rows outside a settling transaction: they are read again. */
  function forgetRows<T>(written: Promise<T>, keys?: readonly string[]): Promise<T> {
    if (committedRows === undefined) return written
    const forget = () => {
      if (keys === undefined) committedRows.clear()
      else for (const key of keys) committedRows.delete(key)
    }
    return written.finally(forget)
  }

  /** The row as a journaled entry leaves it; undefined when the store cannot be read (closing). */
  function rowAfter(entry: LedgerEntry): BudgetRow | undefined {
    try {
      return budget(entry.projectId, entry.month)
    } catch {
      return undefined
    }
  }

  return {
    /** The month's row, with what this process settled and has not yet committed counted as used. */
    budget,

    /**
     * Holds `reservation.micros` of the month's budget in the store, where every process sharing it
     * sees the hold; of the key's month too (`keyLimitMicros`) when the reservation names its key.
     */
    reserve(requestId: string, reservation: Reservation, limitMicros: number, keyLimitMicros?: number): Promise<ReserveResult> {
      const { projectId, month, micros, keyId } = reservation
      const keys = keyId === undefined ? [rowKey(projectId, month)] : [rowKey(projectId, month), rowKey(keyId, month)]
      return forgetRows(store.transaction((): ReserveResult => {
        const row = budgets.get(keys[0]!) ?? EMPTY_ROW
        const available = availableMicros(row, limitMicros)
        if (micros > available) {
          noteLimit(projectId, month, limitMicros, micros, row)
          return { ok: false, availableMicros: Math.max(0, available) }
        }
        const keyRow = keyId === undefined ? undefined : budgets.get(keys[1]!) ?? EMPTY_ROW
        if (keyRow !== undefined) {
          const forKey = availableMicros(keyRow, keyLimitMicros ?? 0)
          if (micros > forKey) return { ok: false, availableMicros: Math.max(0, forKey), byKey: true }
          budgets.put(keys[1]!, { ...keyRow, reservedMicros: keyRow.reservedMicros + micros })
        }
        budgets.put(keys[0]!, { ...row, reservedMicros: row.reservedMicros + micros })
        reservations.put(requestId, reservation)
        return { ok: true }
      }), keys)
    },

    /** Sends usage.limit_exceeded for a refusal decided outside the store, once a month. */
    limitExceeded(projectId: string, month: string, limitMicros: number, requestedMicros: number): Promise<void> {
      const key = rowKey(projectId, month)
      return forgetRows(store.transaction(() => noteLimit(projectId, month, limitMicros, requestedMicros, budgets.get(key) ?? EMPTY_ROW)), [key])
    },

    /**
     * Adds to this process's lease on the month `needMicros` and, of what is left beyond them, as
     * much as `spare` gives (decided inside the transaction, from what the month has left); or,
     * when the month cannot cover `needMicros`, adds nothing and notes the limit as reserve() does.
     */
    growLease(projectId: string, month: string, needMicros: number, limitMicros: number, spare: (beyondMicros: number) => number): Promise<LeaseResult> {
      return store.transaction((): LeaseResult => {
        const key = rowKey(projectId, month)
        const row = budgets.get(key) ?? EMPTY_ROW
        const available = availableMicros(row, limitMicros)
        if (needMicros > available) {
          noteLimit(projectId, month, limitMicros, needMicros, row)
          return { availableMicros: Math.max(0, available) }
        }
        const grantedMicros = needMicros + spare(available - needMicros)
        budgets.put(key, { ...row, reservedMicros: row.reservedMicros + grantedMicros })
        const id = leaseKey(owner, projectId, month)
        const lease = reservations.get(id)
        reservations.put(id, { projectId, month, micros: (lease?.micros ?? 0) + grantedMicros, owner })
        return { grantedMicros }
      })
    },

    /**
     * Gives back to the month what `micros()` says this process's lease holds unused, asked inside
     * the transaction so that holds carved or settled meanwhile count; resolves with the amount.
     */
    returnLease(projectId: string, month: string, micros: () => number): Promise<number> {
      return store.transaction(() => {
        const id = leaseKey(owner, projectId, month)
        const lease = reservations.get(id)
        const returned = Math.min(Math.max(0, micros()), lease?.micros ?? 0)
        if (lease === undefined || returned === 0) return 0
        const rows = new RowCache(budgets)
        shrinkLease(id, lease, returned, rows)
        rows.writeAll()
        return returned
      })
    },

    /**
     * Records a finished request and releases its reservation; a second call for the same id
     * changes nothing. Crossing 80% or 90% of `limitMicros` sends its usage event once a month.
     */
    settle(entry: LedgerEntry, limitMicros: number, heldInStore = true, checkpointed = false, leased?: LeasedHold): Settled {
      const start = starts.get(entry.id)
      starts.delete(entry.id)
      const line: JournalLine = { entry, limitMicros, heldInStore, checkpointed: checkpointed || start === 'stored' }
      if (leased !== undefined) (line as { leased?: LeasedHold }).leased = leased
      const startMark = start === 'stored' ? undefined : start
      const repeated = pendingEntries.has(entry.id)
      let mark: JournalMark | undefined
      try {
        mark = journal.append(line)
      } catch {
        mark = undefined
      }
      if (mark !== undefined && !repeated) {
        pendingEntries.set(entry.id, entry)
        addMicros(unbatchedMicros, rowKey(entry.projectId, entry.month), entry.costMicros)
        addMicros(unbatchedMicros, rowKey(entry.keyId, entry.month), entry.costMicros)
      }
      const committed = new Promise<BudgetRow>((resolve, reject) => {
        queued.push({ ...line, mark, startMark, resolve, reject })
        if (queued.length === 1) commitQueued()
      })
      return { row: mark === undefined ? undefined : rowAfter(entry), committed }
    },

    /** Resolves once every settlement made so far is committed (or refused). */
    idle(): Promise<void> {
      return lastCommit.then(() => undefined, () => undefined)
    },

    /** The journal stays only if a commit failed: then the next start replays it. */
    close(): void {
      journal.close()
    },

    /** Records the progress of running streams in one transaction; a stream already settled is skipped. */
    checkpoint,

    /**
     * Records the first checkpoint of streams just admitted (their prompts), so that a crash from
     * now on settles each to at least that: journaled with one write, durable at once like a
     * settlement, and done with once the stream is settled. Where the journal cannot be written,
     * checkpointed in the store instead.
     */
    startStreams(progress: readonly StreamCheckpoint[]): Promise<void> {
      let mark: JournalMark
      try {
        mark = journal.appendAll(progress.map(({ entry, limitMicros }) => ({ entry, limitMicros, heldInStore: true, checkpointed: false, started: true })))
      } catch {
        for (const { entry } of progress) starts.set(entry.id, 'stored')
        return checkpoint(progress)
      }
      for (const { entry } of progress) starts.set(entry.id, mark)
      return Promise.resolve()
    },

    /**
     * Cleans up after processes that are gone (a crash leaves their state behind): a stream they
     * were running is settled to its last checkpoint with the outcome `recovered` (the one in the
     * store, else the first one they journaled), and every other reservation they held is released.
     */
    recover(isLive: (owner: string) => boolean): Promise<{ released: number; recovered: number; replayed: number; unreadable: number }> {
      const journals = deadJournals(store.directory, isLive)
      const result = forgetRows(store.transaction(() => {
        const rows = new RowCache(budgets)
        const stats = newDayFigures()
        // Journaled settlements first: a stream settled in full must not be settled again to its
        // checkpoint; then checkpoints in the store, which are later than the first ones journaled.
        let replayed = 0
        let unreadable = 0
        const started: JournalLine[] = []
        for (const found of journals) {
          unreadable += found.unreadable
          for (const line of found.lines) {
            if (line.started === true) {
              started.push(line)
              continue
            }
            if (!entries.doesExist(line.entry.id)) replayed++
            applySettlement(line, rows, stats, found.owner)
          }
        }
        let recovered = 0
        for (const { key, value } of checkpoints.getRange()) {
          if (isLive(value.owner)) continue
          applySettlement({ entry: value.entry, limitMicros: value.limitMicros, heldInStore: true, checkpointed: false }, rows, stats, value.owner)
          checkpoints.remove(key)
          recovered++
        }
        for (const line of started) {
          if (entries.doesExist(line.entry.id)) continue
          applySettlement(line, rows, stats, owner)
          recovered++
        }
        let released = 0
        for (const { key, value } of reservations.getRange()) {
          if (isLive(value.owner)) continue
          releaseHold(String(key), value, rows)
          released++
        }
        rows.writeAll()
        writeStats(stats)
        return { released, recovered, replayed, unreadable }
      }))
      return result.then((counts) => {
        for (const found of journals) removeJournal(found.path)
        return counts
      })
    },

    checkpointCount(): number {
      return checkpoints.getKeysCount()
    },

    dayStats(projectId: string, day: string): DayStats | undefined {
      const prefix = `${projectId}/${day}/`
      let found = false
      let hits = 0
      let misses = 0
      const models: Record<string, ModelStats> = {}
      for (const { key, value } of modelDays.getRange({ start: prefix, end: `${prefix}\uffff` })) {
        found = true
        hits += value.hits
        misses += value.misses
        models[String(key).slice(prefix.length)] = {
          requests: value.requests, tokens: value.tokens, costMicros: value.costMicros, ...(value.unpriced === undefined ? {} : { unpriced: value.unpriced }),
        }
      }
      return found ? { hits, misses, models } : undefined
    },

    /** The day's figures of each key, user or tag that had a request. */
    spendRows(projectId: string, day: string, dimension: SpendDimension): SpendRow[] {
      const prefix = spendKeyOf(projectId, day, dimension, '')
      const found: SpendRow[] = []
      for (const { key, value } of spendDays.getRange({ start: prefix, end: `${prefix}\uffff` })) found.push({ value: String(key).slice(prefix.length), ...value })
      return mergeSpendRows(found)
    },

    entry(id: string): LedgerEntry | undefined {
      return pendingEntries.get(id) ?? entries.get(id)
    },

    reservationCount(): number {
      return reservations.getKeysCount()
    },
  }

  // Settlements queue up until the store's next commit group (proxy/stores/group-commit.ts), and
  // its transaction applies all of them in order: each budget row and day-stats row is read and
  // written once per batch instead of once per request (in the cache-hit profile, the settle's
  // cost fell by about a third), and processes sharing the store take one commit per window, not
  // one per request. Nothing waits for it but a settlement the journal could not take.
  function commitQueued(): void {
    let batch: QueuedSettlement[] | undefined
    // Through a promise, so a store that throws at once (closed) rejects like one that fails later.
    const flight: InFlightBatch = { marker: undefined, micros: new Map() }
    let written: RowCache | undefined
    const commit = new Promise<BudgetRow[]>((resolve) => resolve(store.grouped(() => {
      batch = queued
      queued = []
      const rows = new RowCache(budgets)
      const stats = newDayFigures()
      const settled = batch.map((item) => {
        const counted = pendingEntries.get(item.entry.id) === item.entry
        const isNew = !entries.doesExist(item.entry.id)
        const row = applySettlement(item, rows, stats, owner, !isNew)
        if (counted) {
          for (const holder of [item.entry.projectId, item.entry.keyId]) {
            const key = rowKey(holder, item.entry.month)
            addMicros(unbatchedMicros, key, -item.entry.costMicros)
            // A repeated id charges nothing: it leaves the count here.
            if (isNew) addMicros(flight.micros, key, item.entry.costMicros)
          }
          if (isNew) flight.marker ??= item.entry.id
        }
        return row
      })
      rows.writeAll()
      writeStats(stats)
      written = rows
      if (flight.micros.size > 0) inFlight.add(flight)
      return settled
    })))
    lastCommit = commit
    commit.then(
      (settled) => {
        inFlight.delete(flight)
        if (committedRows !== undefined) for (const [key, row] of written!.written()) committedRows.set(key, row)
        batch!.forEach((item, i) => {
          if (item.mark !== undefined) {
            journal.committed(item.mark)
            if (pendingEntries.get(item.entry.id) === item.entry) pendingEntries.delete(item.entry.id)
          }
          if (item.startMark !== undefined) journal.committed(item.startMark)
          item.resolve(settled[i]!)
        })
      },
      (error: unknown) => {
        // A transaction refused before it ran leaves its items queued. Their journal lines stay,
        // counted here as settled, for the next start to replay.
        const lost = batch ?? queued.splice(0)
        for (const item of lost) item.reject(error)
      },
    )
  }

  function checkpoint(progress: readonly StreamCheckpoint[]): Promise<void> {
    return store.transaction(() => {
      for (const each of progress) {
        if (!entries.doesExist(each.entry.id)) checkpoints.put(each.entry.id, each)
      }
    })
  }

  function writeStats(stats: DayFigures): void {
    for (const [key, delta] of stats.models) modelDays.put(key, addStats(modelDays.get(key) ?? ZERO_STATS, delta))
    for (const [key, delta] of stats.spend) spendDays.put(key, addSpend(spendDays.get(key) ?? ZERO_SPEND, delta))
  }

  /** `writer`: the process that settled it, whose lease a leased hold came from. */
  function applySettlement(
    { entry, limitMicros, heldInStore, leased, checkpointed }: JournalLine, rows: RowCache, stats: DayFigures, writer: string,
    recorded = entries.doesExist(entry.id),
  ): BudgetRow {
    const key = rowKey(entry.projectId, entry.month)
    if (checkpointed) checkpoints.remove(entry.id)
    // Even when another process recorded the entry first (an idempotent replay): the hold is this one's.
    if (leased !== undefined) {
      const id = leaseKey(writer, entry.projectId, leased.month)
      const lease = reservations.get(id)
      if (lease !== undefined) shrinkLease(id, lease, Math.min(leased.micros, lease.micros), rows)
    }
    if (recorded) return rows.get(key)
    const held = heldInStore ? reservations.get(entry.id) : undefined
    // From the month it was taken in: a request that began last month releases last month's hold.
    if (held !== undefined) releaseHold(entry.id, held, rows)
    const row = rows.get(key)
    const usedMicros = row.usedMicros + entry.costMicros
    const crossed = THRESHOLDS.filter((t) => limitMicros > 0 && usedMicros * 100 >= limitMicros * t && !(row.notified ?? []).includes(t))
    const notified = crossed.length > 0 ? [...(row.notified ?? []), ...crossed] : row.notified
    const overageMicros = (row.overageMicros ?? 0) + (entry.overageMicros ?? 0)
    const next: BudgetRow = {
      usedMicros,
      reservedMicros: row.reservedMicros,
      ...(notified === undefined ? {} : { notified }),
      ...(overageMicros === 0 ? {} : { overageMicros }),
    }
    rows.set(key, next)
    // The key's month too, so that a budget given to a key counts what it spent before.
    if (entry.costMicros > 0) {
      const keyRowKey = rowKey(entry.keyId, entry.month)
      const keyRow = rows.get(keyRowKey)
      rows.set(keyRowKey, { ...keyRow, usedMicros: keyRow.usedMicros + entry.costMicros })
    }
    for (const threshold of crossed) {
      events?.emit('usage.threshold_reached', entry.projectId, {
        period: entry.month, threshold_percent: threshold, budget_limit: dollars(limitMicros), budget_used: dollars(usedMicros),
      })
    }
    entries.put(entry.id, entry)
    // One flat row per project, day and model: small to re-encode.
    const statsKey = `${entry.projectId}/${entry.day}/${entry.model}`
    stats.models.set(statsKey, addStats(stats.models.get(statsKey) ?? ZERO_STATS, {
      requests: 1,
      tokens: entry.promptTokens + entry.completionTokens,
      costMicros: entry.costMicros,
      hits: entry.cacheHit ? 1 : 0,
      misses: entry.cacheHit || entry.passthrough === true ? 0 : 1,
      ...(entry.unpriced === undefined ? {} : { unpriced: 1 }),
    }))
    const { figures, values } = spendOf(entry)
    for (const [dimension, value] of values) {
      const spendKey = spendKeyOf(entry.projectId, entry.day, dimension, value)
      stats.spend.set(spendKey, addSpend(stats.spend.get(spendKey) ?? ZERO_SPEND, figures))
    }
    return next
  }

  function noteLimit(projectId: string, month: string, limitMicros: number, requestedMicros: number, row: BudgetRow): void {
    if ((row.notified ?? []).includes(LIMIT)) return
    budgets.put(rowKey(projectId, month), { ...row, notified: [...(row.notified ?? []), LIMIT] })
    events?.emit('usage.limit_exceeded', projectId, {
      period: month, budget_limit: dollars(limitMicros), budget_used: dollars(row.usedMicros),
      budget_reserved: dollars(row.reservedMicros), requested_cost: dollars(requestedMicros),
    })
  }

  function shrinkLease(id: string, lease: Reservation, micros: number, rows: RowCache): void {
    const key = rowKey(lease.projectId, lease.month)
    const row = rows.get(key)
    rows.set(key, { ...row, reservedMicros: Math.max(0, row.reservedMicros - micros) })
    if (micros >= lease.micros) reservations.remove(id)
    else reservations.put(id, { ...lease, micros: lease.micros - micros })
  }

  function releaseHold(id: string, held: Reservation, rows: RowCache): void {
    for (const holder of held.keyId === undefined ? [held.projectId] : [held.projectId, held.keyId]) {
      const key = rowKey(holder, held.month)
      const row = rows.get(key)
      rows.set(key, { ...row, reservedMicros: Math.max(0, row.reservedMicros - held.micros) })
    }
    reservations.remove(id)
  }
}

export type Ledger = ReturnType<typeof createLedger>
