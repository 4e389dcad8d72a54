// Turns the rows of one or more repeats into the summary the report prints: each row's figures
// (medians over repeats for rates and times, sums for counts), its ratio to its baseline or the
// latency it adds over it, computed within each repeat and then summarised, so a ratio always
// compares two things measured minutes apart on the same machine.
import type { Figures, RowResult } from './rows.ts'
import { median, spreadOf, type Spread } from './stats.ts'

export interface Derived {
  /** rps over the baseline's rps (throughput and streams rows). */
  readonly ratio?: number
  /**
   * This row's server CPU per answer over the baseline's: what an answer costs here in the
   * baseline's answers (the gateway's in the forwarder's). Steadier than the req/s ratio when
   * other work shares the core.
   */
  readonly cpuRatio?: number
  /** This row's latency minus the baseline's (latency rows). */
  readonly addedP50Ms?: number
  readonly addedP99Ms?: number
  readonly addedTtfbP50Ms?: number
  readonly addedTtfbP99Ms?: number
}

export type DerivedName = keyof Derived

export interface SummaryRow {
  readonly name: string
  readonly label: string
  readonly kind: RowResult['kind']
  readonly baseline?: string
  /** As named in every repeat. */
  readonly isAsNamed: boolean
  readonly repeats: number
  readonly figures: Figures
  /** Medians of the per-repeat values. */
  readonly derived: Derived
  /** The same per-repeat values: median, min and max. */
  readonly spreads: Readonly<Partial<Record<DerivedName, Spread>>>
  /** Audit counters' moves added up over the repeats. */
  readonly audited: Readonly<Record<string, number>>
  /** Every distinct note of the repeats. */
  readonly notes: readonly string[]
}

const COUNTS = new Set<keyof Figures>(['ok', 'failed', 'stalls'])

function deriveOne(row: RowResult, base: RowResult | undefined): Derived {
  if (base === undefined) return {}
  const f = row.figures
  const b = base.figures
  if (row.kind === 'latency') {
    return {
      addedP50Ms: (f.p50Ms ?? Number.NaN) - (b.p50Ms ?? Number.NaN),
      addedP99Ms: (f.p99Ms ?? Number.NaN) - (b.p99Ms ?? Number.NaN),
      addedTtfbP50Ms: (f.ttfbP50Ms ?? Number.NaN) - (b.ttfbP50Ms ?? Number.NaN),
      addedTtfbP99Ms: (f.ttfbP99Ms ?? Number.NaN) - (b.ttfbP99Ms ?? Number.NaN),
    }
  }
  return { ratio: (f.rps ?? Number.NaN) / (b.rps ?? Number.NaN), cpuRatio: (f.cpuMicrosPerAnswer ?? Number.NaN) / (b.cpuMicrosPerAnswer ?? Number.NaN) }
}

/** Each row of one repeat with its derived figures against its baseline in that repeat. */
export function derive(repeat: readonly RowResult[]): Array<{ row: RowResult; derived: Derived }> {
  const byName = new Map(repeat.map((row) => [row.name, row]))
  return repeat.map((row) => ({ row, derived: deriveOne(row, row.baseline === undefined ? undefined : byName.get(row.baseline)) }))
}

function summariseFigures(all: readonly Figures[]): Figures {
  const keys = new Set(all.flatMap((f) => Object.keys(f) as Array<keyof Figures>))
  const out: Record<string, number> = { ok: 0, failed: 0 }
  for (const key of keys) {
    const values = all.map((f) => f[key]).filter((v): v is number => v !== undefined)
    out[key] = COUNTS.has(key) ? values.reduce((a, b) => a + b, 0) : median(values)
  }
  return out as unknown as Figures
}

/** One summary row per row name, in the order the rows first ran. */
export function summarise(repeats: readonly (readonly RowResult[])[]): SummaryRow[] {
  const groups = new Map<string, Array<{ row: RowResult; derived: Derived }>>()
  for (const repeat of repeats) {
    for (const entry of derive(repeat)) {
      const list = groups.get(entry.row.name) ?? []
      list.push(entry)
      groups.set(entry.row.name, list)
    }
  }
  return [...groups.values()].map((entries) => {
    const first = entries[0]!.row
    const odd = entries.find((e) => !e.row.isAsNamed)?.row
    const names = new Set(entries.flatMap((e) => Object.keys(e.derived) as DerivedName[]))
    const spreads: Partial<Record<DerivedName, Spread>> = {}
    const derived: Record<string, number> = {}
    for (const name of names) {
      const spread = spreadOf(entries.map((e) => e.derived[name] ?? Number.NaN))
      spreads[name] = spread
      derived[name] = spread.median
    }
    const audited: Record<string, number> = {}
    for (const e of entries) for (const [name, delta] of Object.entries(e.row.audited ?? {})) audited[name] = (audited[name] ?? 0) + delta
    return {
      name: first.name,
      label: odd?.label ?? first.label,
      kind: first.kind,
      ...(first.baseline === undefined ? {} : { baseline: first.baseline }),
      isAsNamed: odd === undefined,
      repeats: entries.length,
      figures: summariseFigures(entries.map((e) => e.row.figures)),
      derived,
      spreads,
      audited,
      notes: [...new Set(entries.flatMap((e) => e.row.notes))],
    }
  })
}
