// Which steps a run takes: every row by default but the optional ones; with --only, the rows
// whose name contains one of the given texts (or is exactly a text given as `=name`), plus the
// rows they are compared with. Texts are separated by commas; a comma followed by a space is part
// of a text, as in the row names `…, OTel on` and `…, PostgreSQL + Redis`. A step runs when any of its rows is chosen, and a lane when any
// of its steps runs.
import type { Lane, Step } from './rows.ts'

export interface Selection {
  readonly lanes: ReadonlyArray<{ readonly lane: Lane; readonly steps: readonly Step[] }>
  /** The chosen rows' names. */
  readonly rows: ReadonlySet<string>
}

export function selectSteps(all: readonly Lane[], only: string | undefined): Selection {
  const rows = all.flatMap((lane) => lane.steps.flatMap((step) => step.rows))
  const terms =
    only === undefined
      ? undefined
      : only
          .split(/,(?! )/)
          .map((t) => t.trim().toLowerCase())
          .filter((t) => t.length > 0)
  const matches = (name: string, term: string) => (term.startsWith('=') ? name.toLowerCase() === term.slice(1) : name.toLowerCase().includes(term))
  const chosen = new Set(rows.filter((row) => (terms === undefined ? row.optional !== true : terms.some((t) => matches(row.name, t)))).map((row) => row.name))
  for (let grew = true; grew; ) {
    grew = false
    for (const row of rows) {
      if (chosen.has(row.name) && row.baseline !== undefined && !chosen.has(row.baseline)) {
        chosen.add(row.baseline)
        grew = true
      }
    }
  }
  const lanes = all
    .map((lane) => ({ lane, steps: lane.steps.filter((step) => step.rows.some((row) => chosen.has(row.name))) }))
    .filter(({ steps }) => steps.length > 0)
  return { lanes, rows: chosen }
}
