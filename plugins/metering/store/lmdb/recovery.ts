// Settling what processes that are gone left behind (a crash leaves their state in the store and
// their journals), inside one transaction: their journaled settlements are committed, the streams
// they ran are settled to their last checkpoint with the outcome `recovered` (the one in the store,
// else the first one they journaled), and every other reservation they held is released.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import { applySettlement, releaseHold } from './apply.ts'
import { newDayFigures, writeDayFigures } from './day-figures.ts'
import type { DeadJournal, JournalLine } from './settlement-journal.ts'
import { RowCache, type LedgerTables } from './tables.ts'

export interface RecoveredCounts {
  readonly released: number
  readonly recovered: number
  readonly replayed: number
  readonly unreadable: number
}

/** Runs inside the store's transaction; `owner` is this process, which settles the streams only journaled. */
export function settleDead(
  tables: LedgerTables,
  events: EventOutbox | undefined,
  owner: string,
  journals: readonly DeadJournal[],
  isLive: (owner: string) => boolean,
): RecoveredCounts {
  const { entries, checkpoints, reservations } = tables
  const rows = new RowCache(tables.budgets)
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
      applySettlement(tables, events, line, rows, stats, found.owner)
    }
  }
  let recovered = 0
  for (const { key, value } of checkpoints.getRange()) {
    if (isLive(value.owner)) continue
    applySettlement(tables, events, { entry: value.entry, limitMicros: value.limitMicros, heldInStore: true, checkpointed: false }, rows, stats, value.owner)
    checkpoints.remove(key)
    recovered++
  }
  for (const line of started) {
    if (entries.doesExist(line.entry.id)) continue
    applySettlement(tables, events, line, rows, stats, owner)
    recovered++
  }
  let released = 0
  for (const { key, value } of reservations.getRange()) {
    if (isLive(value.owner)) continue
    releaseHold(tables, String(key), value, rows)
    released++
  }
  rows.writeAll()
  writeDayFigures(tables, stats)
  return { released, recovered, replayed, unreadable }
}
