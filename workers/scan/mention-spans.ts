// Spans of a text that mention an attack rather than make it (quoted-mentions.ts,
// reported-orders.ts) or defend against it (defenses.ts): the prompt-injection detector leaves
// matches inside them out.

export interface Span {
  readonly start: number
  readonly end: number
}

/** The span of each match's one capture group, in order; `pattern` has the `d` and `g` flags. */
export function groupSpans(text: string, pattern: RegExp): Span[] {
  const spans: Span[] = []
  for (const m of text.matchAll(pattern)) {
    const [start, end] = m.indices![1]!
    spans.push({ start, end })
  }
  return spans
}

export function isInside(spans: readonly Span[], start: number, end: number): boolean {
  for (const span of spans) if (start >= span.start && end <= span.end) return true
  return false
}
