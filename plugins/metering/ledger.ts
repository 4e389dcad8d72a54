// The metering store. Money is kept in integer micro-dollars so sums are exact. Every write is
// one LMDB transaction, which also serializes processes sharing the environment: a reservation
// can never see a stale budget, and a settled request is written exactly once (its ledger entry
// is keyed by request id and checked inside the same transaction).
import type { EventOutbox } from '../../proxy/events.ts'
import type { PluginStore } from '../../proxy/store.ts'

export interface BudgetRow {
  readonly usedMicros: number
  readonly reservedMicros: number
  /** Usage events already sent this month (80, 90 for the thresholds, 100 for the limit): each fires once. */
  readonly notified?: readonly number[]
}

export interface Reservation {
  readonly projectId: string
  readonly month: string
  readonly micros: number
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
  readonly costMicros: number
  readonly cacheHit: boolean
  readonly outcome: string
}

export interface ModelStats {
  readonly requests: number
  readonly tokens: number
  readonly costMicros: number
}

export interface DayStats {
  readonly hits: number
  readonly misses: number
  readonly models: Readonly<Record<string, ModelStats>>
}

export type ReserveResult = { readonly ok: true } | { readonly ok: false; readonly availableMicros: number }

const EMPTY_ROW: BudgetRow = { usedMicros: 0, reservedMicros: 0 }

export function toMicros(dollars: number): number {
  return Math.round(dollars * 1e6)
}

const THRESHOLDS = [80, 90] as const
const LIMIT = 100
const dollars = (micros: number) => micros / 1e6

export function createLedger(store: PluginStore, events?: EventOutbox) {
  const budgets = store.open<BudgetRow>('budgets')
  const reservations = store.open<Reservation>('reservations')
  const entries = store.open<LedgerEntry>('ledger')
  const days = store.open<DayStats>('day-stats')
  const rowKey = (projectId: string, month: string) => `${projectId}/${month}`

  return {
    budget(projectId: string, month: string): BudgetRow {
      return budgets.get(rowKey(projectId, month)) ?? EMPTY_ROW
    },

    reserve(requestId: string, reservation: Reservation, limitMicros: number): Promise<ReserveResult> {
      return store.transaction((): ReserveResult => {
        const key = rowKey(reservation.projectId, reservation.month)
        const row = budgets.get(key) ?? EMPTY_ROW
        const available = limitMicros - row.usedMicros - row.reservedMicros
        if (reservation.micros > available) {
          if (!(row.notified ?? []).includes(LIMIT)) {
            budgets.put(key, { ...row, notified: [...(row.notified ?? []), LIMIT] })
            events?.emit('usage.limit_exceeded', reservation.projectId, {
              period: reservation.month, budget_limit: dollars(limitMicros), budget_used: dollars(row.usedMicros),
              budget_reserved: dollars(row.reservedMicros), requested_cost: dollars(reservation.micros),
            })
          }
          return { ok: false, availableMicros: Math.max(0, available) }
        }
        budgets.put(key, { ...row, reservedMicros: row.reservedMicros + reservation.micros })
        reservations.put(requestId, reservation)
        return { ok: true }
      })
    },

    /**
     * Records a finished request and releases its reservation; a second call for the same id
     * changes nothing. Crossing 80% or 90% of `limitMicros` sends its usage event once a month.
     */
    settle(entry: LedgerEntry, limitMicros: number): Promise<BudgetRow> {
      return store.transaction(() => {
        const key = rowKey(entry.projectId, entry.month)
        if (entries.get(entry.id) !== undefined) return budgets.get(key) ?? EMPTY_ROW
        const held = reservations.get(entry.id)
        if (held !== undefined) releaseHold(entry.id, held)
        const row = budgets.get(key) ?? EMPTY_ROW
        const usedMicros = row.usedMicros + entry.costMicros
        const crossed = THRESHOLDS.filter((t) => limitMicros > 0 && usedMicros * 100 >= limitMicros * t && !(row.notified ?? []).includes(t))
        const next: BudgetRow = { ...row, usedMicros, ...(crossed.length > 0 ? { notified: [...(row.notified ?? []), ...crossed] } : {}) }
        budgets.put(key, next)
        for (const threshold of crossed) {
          events?.emit('usage.threshold_reached', entry.projectId, {
            period: entry.month, threshold_percent: threshold, budget_limit: dollars(limitMicros), budget_used: dollars(usedMicros),
          })
        }
        entries.put(entry.id, entry)
        const statsKey = rowKey(entry.projectId, entry.day)
        const stats = days.get(statsKey) ?? { hits: 0, misses: 0, models: {} }
        const model = stats.models[entry.model] ?? { requests: 0, tokens: 0, costMicros: 0 }
        days.put(statsKey, {
          hits: stats.hits + (entry.cacheHit ? 1 : 0),
          misses: stats.misses + (entry.cacheHit ? 0 : 1),
          models: {
            ...stats.models,
            [entry.model]: {
              requests: model.requests + 1,
              tokens: model.tokens + entry.promptTokens + entry.completionTokens,
              costMicros: model.costMicros + entry.costMicros,
            },
          },
        })
        return next
      })
    },

    /** Releases the reservations of processes that are gone (a crash leaves them behind). */
    recover(isLive: (owner: string) => boolean): Promise<number> {
      return store.transaction(() => {
        let released = 0
        for (const { key, value } of reservations.getRange()) {
          if (isLive(value.owner)) continue
          releaseHold(String(key), value)
          released++
        }
        return released
      })
    },

    dayStats(projectId: string, day: string): DayStats | undefined {
      return days.get(rowKey(projectId, day))
    },

    entry(id: string): LedgerEntry | undefined {
      return entries.get(id)
    },

    reservationCount(): number {
      return reservations.getKeysCount()
    },
  }

  function releaseHold(id: string, held: Reservation): void {
    const key = rowKey(held.projectId, held.month)
    const row = budgets.get(key) ?? EMPTY_ROW
    budgets.put(key, { ...row, reservedMicros: Math.max(0, row.reservedMicros - held.micros) })
    reservations.remove(id)
  }
}

export type Ledger = ReturnType<typeof createLedger>
