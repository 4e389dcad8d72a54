// Which steps a run takes: every row by default but the optional ones; with --only, the rows
// whose name contains one of the given texts, plus the rows they are compared with. A step runs
// when any of its rows is chosen, and a lane when any of its steps runs.
import type { Lane, Step } from './rows.ts'

export type Selection = Array<{ readonly lane: Lane; readonly steps: readonly Step[] }>

export function selectSteps(all: readonly Lane[], only: string | undefined): Selection {
  const rows = all.flatMap((lane) => lane.steps.flatMap((step) => step.rows))
  const terms = only === undefined ? undefined : only.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0)
  const chosen = new Set(rows.filter((row) => (terms === undefined ? row.optional !== true : terms.some((t) => row.name.toLowerCase().includes(t)))).map((row) => row.name))
  for (let grew = true; grew;) {
    grew = false
    for (const row of rows) {
      if (chosen.has(row.name) && row.baseline !== undefined && !chosen.has(row.baseline)) {
        chosen.add(row.baseline)
        grew = true
      }
    }
  }
  return all
    .map((lane) => ({ lane, steps: lane.steps.filter((step) => step.rows.some((row) => chosen.has(row.name))) }))
    .filter(({ steps }) => steps.length > 0)
}
