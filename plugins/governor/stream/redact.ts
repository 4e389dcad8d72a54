// Redaction: detected values replaced by [REDACTED:TYPE] before an answer leaves. Overlapping
// findings are replaced as one span, named after the most sensitive type among them.
import type { Finding } from '../../../workers/scan-content.ts'
import { severityRank } from '../verdict/levels.ts'
import { ENTITY_TIERS } from '../verdict/sensitivity.ts'
import { isRedactedType } from '../verdict/finding-severity.ts'

export interface Span {
  readonly start: number
  readonly end: number
}

export interface Redacted {
  readonly text: string
  /** The spans of the original text that were replaced. */
  readonly spans: readonly Span[]
}

/**
 * text[from, to) with every redacted type's finding replaced; `findings` have offsets into `text`.
 * A finding that reaches outside [from, to) has only its part inside replaced.
 */
export function redact(text: string, from: number, to: number, findings: readonly Finding[]): Redacted {
  const spans: Span[] = []
  let out = ''
  let at = from
  for (const group of overlapping(findings.filter((f) => isRedactedType(f.type) && f.end > from && f.start < to))) {
    const start = Math.max(group.start, at)
    const end = Math.min(group.end, to)
    if (end <= start) continue
    out += `${text.slice(at, start)}[REDACTED:${group.type}]`
    spans.push({ start, end })
    at = end
  }
  return { text: out + text.slice(at, to), spans }
}

interface Group extends Span {
  readonly type: Finding['type']
}

function overlapping(findings: readonly Finding[]): Group[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end)
  const groups: Group[] = []
  for (const finding of sorted) {
    const last = groups.at(-1)
    if (last === undefined || finding.start >= last.end) {
      groups.push({ start: finding.start, end: finding.end, type: finding.type })
      continue
    }
    const type = rank(finding.type) > rank(last.type) ? finding.type : last.type
    groups[groups.length - 1] = { start: last.start, end: Math.max(last.end, finding.end), type }
  }
  return groups
}

function rank(type: Finding['type']): number {
  return severityRank(ENTITY_TIERS[type].severity)
}

/** Whether some span overlaps [start, end). */
export function isCovered(spans: readonly Span[], start: number, end: number): boolean {
  return spans.some((span) => span.start < end && start < span.end)
}
