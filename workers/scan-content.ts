// Scans text for personal data, secrets and prompt injection. Pure and synchronous: it runs in
// the worker pool for long texts and inline for short ones. Offsets in the findings refer to the
// text as given, even though detectors see it normalized (NFKC, invisible characters removed).
import { DETECTORS } from './scan/detectors.ts'
import { mergeFindings } from './scan/merge.ts'
import { normalizeText } from './scan/normalize.ts'
import { ENTITY_TYPES, type EntityType, type Finding } from './scan/types.ts'

export type { EntityType, Finding } from './scan/types.ts'

export interface ScanInput {
  readonly text: string
  /** Types to look for; all types when omitted. */
  readonly types?: readonly EntityType[]
}

export function scanContent(input: ScanInput): Finding[] {
  const wanted = new Set<EntityType>(input.types ?? ENTITY_TYPES)
  if (input.text.length === 0 || wanted.size === 0) return []
  const normalized = normalizeText(input.text)
  const found: Finding[] = []
  for (const detector of DETECTORS) {
    if (!detector.types.some((type) => wanted.has(type))) continue
    for (const finding of detector.detect(normalized.text, wanted)) {
      if (!wanted.has(finding.type) || finding.end <= finding.start) continue
      const span = normalized.toOriginal(finding.start, finding.end)
      found.push({ ...finding, start: span.start, end: span.end })
    }
  }
  return mergeFindings(found)
}

export interface ScanBatchInput {
  readonly texts: readonly string[]
}

/** Several texts in one pool task: findings per text, offsets into that text. */
export function scanContentBatch(input: ScanBatchInput): Finding[][] {
  return input.texts.map((text) => scanContent({ text }))
}
