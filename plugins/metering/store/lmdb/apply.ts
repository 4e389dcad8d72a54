// What a settlement, a refusal or a given-back hold writes, inside the transaction that makes it:
// the month rows (through the transaction's RowCache), the entry, the day figures, the holds and
// leases, and the usage events each sends once a month.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import { chargedRow, limitNoted, releasedRow, spentRow } from '../../logic/settle.ts'
import { addEntryFigures, type DayFigures } from './day-figures.ts'
import type { JournalLine } from './settlement-journal.ts'
import { leaseKey, rowKey, type LedgerTables, type Reservation, type RowCache } from './tables.ts'

const dollars = (micros: number) => micros / 1e6

/** `writer`: the process that settled it, whose lease a leased hold came from. */
export function applySettlement(
  tables: LedgerTables,
  events: EventOutbox | undefined,
  { entry, limitMicros, heldInStore, leased, checkpointed }: JournalLine,
  rows: RowCache,
  stats: DayFigures,
  writer: string,
  recorded = tables.entries.doesExist(entry.id),
): BudgetRow {
  const { checkpoints, reservations, entries } = tables
  const key = rowKey(entry.projectId, entry.month)
  if (checkpointed) checkpoints.remove(entry.id)
  // Recorded already: an earlier application of this settlement (a journal replayed after its
  // commit) shrank the lease then, and shrinking it again would free budget still held.
  if (recorded) return rows.get(key)
  if (leased !== undefined) {
    const id = leaseKey(writer, entry.projectId, leased.month)
    const lease = reservations.get(id)
    if (lease !== undefined) shrinkLease(tables, id, lease, Math.min(leased.micros, lease.micros), rows)
  }
  const held = heldInStore ? reservations.get(entry.id) : undefined
  // From the month it was taken in: a request that began last month releases last month's hold.
  if (held !== undefined) releaseHold(tables, entry.id, held, rows)
  const { row: next, crossed } = chargedRow(rows.get(key), entry, limitMicros)
  rows.set(key, next)
  // The key's month too, so that a budget given to a key counts what it spent before.
  if (entry.costMicros > 0) {
    const keyRowKey = rowKey(entry.keyId, entry.month)
    rows.set(keyRowKey, spentRow(rows.get(keyRowKey), entry.costMicros))
  }
  for (const threshold of crossed) {
    events?.emit('usage.threshold_reached', entry.projectId, {
      period: entry.month,
      threshold_percent: threshold,
      budget_limit: dollars(limitMicros),
      budget_used: dollars(next.usedMicros),
    })
  }
  entries.put(entry.id, entry)
  addEntryFigures(stats, entry)
  return next
}

export function noteLimit(
  { budgets }: LedgerTables,
  events: EventOutbox | undefined,
  projectId: string,
  month: string,
  limitMicros: number,
  requestedMicros: number,
  row: BudgetRow,
): void {
  const noted = limitNoted(row)
  if (noted === undefined) return
  budgets.put(rowKey(projectId, month), noted)
  events?.emit('usage.limit_exceeded', projectId, {
    period: month,
    budget_limit: dollars(limitMicros),
    budget_used: dollars(row.usedMicros),
    budget_reserved: dollars(row.reservedMicros),
    requested_cost: dollars(requestedMicros),
  })
}

export function shrinkLease({ reservations }: LedgerTables, id: string, lease: Reservation, micros: number, rows: RowCache): void {
  const key = rowKey(lease.projectId, lease.month)
  rows.set(key, releasedRow(rows.get(key), micros))
  if (micros >= lease.micros) reservations.remove(id)
  else reservations.put(id, { ...lease, micros: lease.micros - micros })
}

export function releaseHold({ reservations }: LedgerTables, id: string, held: Reservation, rows: RowCache): void {
  for (const holder of held.keyId === undefined ? [held.projectId] : [held.projectId, held.keyId]) {
    const key = rowKey(holder, held.month)
    rows.set(key, releasedRow(rows.get(key), held.micros))
  }
  reservations.remove(id)
}
