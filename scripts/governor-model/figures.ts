// Held-out figures of the model: the share flagged per family, per language and overall, for
// attacks (recall) and benign texts (false positives).
import type { Row } from './dataset.ts'

export interface Share {
  readonly flagged: number
  readonly of: number
}

export interface Figures {
  readonly attacks: Share
  readonly benign: Share
  readonly byFamily: Readonly<Record<string, Share>>
  readonly byLanguage: Readonly<Record<string, { readonly attacks: Share; readonly benign: Share }>>
  readonly bySource: Readonly<Record<string, Share>>
}

function tally(rows: readonly Row[], flagged: (i: number) => boolean, keyOf: (row: Row) => string): Record<string, Share> {
  const counts = new Map<string, { flagged: number; of: number }>()
  rows.forEach((row, i) => {
    const key = keyOf(row)
    const count = counts.get(key) ?? { flagged: 0, of: 0 }
    count.of++
    if (flagged(i)) count.flagged++
    counts.set(key, count)
  })
  return Object.fromEntries([...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)))
}

export function figuresOf(rows: readonly Row[], flagged: (i: number) => boolean): Figures {
  const totals = tally(rows, flagged, (row) => row.label)
  const languages = tally(rows, flagged, (row) => `${row.lang}\u0000${row.label}`)
  const byLanguage: Record<string, { attacks: Share; benign: Share }> = {}
  for (const [key, share] of Object.entries(languages)) {
    const [lang, label] = key.split('\u0000') as [string, string]
    byLanguage[lang] ??= { attacks: { flagged: 0, of: 0 }, benign: { flagged: 0, of: 0 } }
    byLanguage[lang][label === 'attack' ? 'attacks' : 'benign'] = share
  }
  return {
    attacks: totals.attack ?? { flagged: 0, of: 0 },
    benign: totals.benign ?? { flagged: 0, of: 0 },
    byFamily: tally(rows, flagged, (row) => row.family),
    byLanguage,
    bySource: tally(rows, flagged, (row) => `${row.source} (${row.label})`),
  }
}

export const percent = (share: Share): string => (share.of === 0 ? '–' : `${((100 * share.flagged) / share.of).toFixed(1)}%`)
