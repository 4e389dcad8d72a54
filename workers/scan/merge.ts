// Findings of one type that overlap describe one entity: they become one finding spanning both,
// with the higher score. Output is sorted by start, then end, then type.
import type { Finding, ModelOpinion } from './types.ts'

export function mergeFindings(findings: readonly Finding[]): Finding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || a.end - b.end || compareText(a.type, b.type))
  const merged: Finding[] = []
  const lastByType = new Map<string, number>()
  for (const finding of sorted) {
    const index = lastByType.get(finding.type)
    const previous = index === undefined ? undefined : merged[index]
    if (previous !== undefined && finding.start < previous.end) {
      merged[index as number] = combine(previous, finding)
      continue
    }
    lastByType.set(finding.type, merged.length)
    merged.push(finding)
  }
  return merged.sort((a, b) => a.start - b.start || a.end - b.end || compareText(a.type, b.type))
}

function combine(a: Finding, b: Finding): Finding {
  const heuristic = a.heuristic === true && b.heuristic === true
  const combined: Finding = { type: a.type, start: Math.min(a.start, b.start), end: Math.max(a.end, b.end), score: Math.max(a.score, b.score) }
  const model = bothOpinions(a.model, b.model)
  return { ...combined, ...(heuristic ? { heuristic: true } : {}), ...(model === undefined ? {} : { model }) }
}

/** One finding made of two: the model's higher probability, flagged with the rules when either was. */
function bothOpinions(a: ModelOpinion | undefined, b: ModelOpinion | undefined): ModelOpinion | undefined {
  if (a === undefined || b === undefined) return a ?? b
  return { probability: Math.max(a.probability, b.probability), withRules: a.withRules || b.withRules }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
