// Redaction: detected values replaced by [REDACTED:TYPE] before an answer leaves. Overlapping
// findings are replaced as one span, named after the most sensitive type among them.
import type { EntityType, Finding } from '../../../../workers/scan-content.ts'
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
  for (const group of redactionGroups(findings.filter((f) => f.end > from && f.start < to))) {
    const start = Math.max(group.start, at)
    const end = Math.min(group.end, to)
    if (end <= start) continue
    out += `${text.slice(at, start)}${placeholder(group.type)}`
    spans.push({ start, end })
    at = end
  }
  return { text: out + text.slice(at, to), spans }
}

/** What a redacted value is replaced by. */
export function placeholder(type: EntityType): string {
  return `[REDACTED:${type}]`
}

/** A span to replace as one, named after its most sensitive finding. */
export interface Group extends Span {
  readonly type: EntityType
}

/** The findings of redacted types, overlapping ones merged, in the order of the text. */
export function redactionGroups(findings: readonly Finding[]): Group[] {
  const sorted = findings.filter((f) => isRedactedType(f.type)).sort((a, b) => a.start - b.start || b.end - a.end)
  const groups: Group[] = []
  for (const finding of sorted) {
    const last = groups.at(-1)
    if (last === undefined || finding.start >= last.end) {
      groups.push({ start: finding.start, end: finding.end, type: finding.type })
      continue
    }
    groups[groups.length - 1] = { start: last.start, end: Math.max(last.end, finding.end), type: moreSensitive(last.type, finding.type) }
  }
  return groups
}

/** Of two types, the one a replacement is named after: the first unless the second is more sensitive. */
export function moreSensitive(a: EntityType, b: EntityType): EntityType {
  return rank(b) > rank(a) ? b : a
}

function rank(type: EntityType): number {
  return severityRank(ENTITY_TIERS[type].severity)
}

/** Whether some span overlaps [start, end). */
export function isCovered(spans: readonly Span[], start: number, end: number): boolean {
  return spans.some((span) => span.start < end && start < span.end)
}
