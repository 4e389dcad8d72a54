// Scans text for personal data, secrets and prompt injection. Pure and synchronous: it runs in
// the worker pool for long texts and inline for short ones. Only a batch read by a project's own
// classifier as well is asynchronous, and runs in the pool alone. Offsets in the findings refer to the
// text as given, even though detectors see it normalized (NFKC, invisible characters removed)
// and, for base64 and hex runs that decode to readable text, decoded.
import type { ClassifierSettings } from './scan/classifier/classifier.ts'
import { classifyUndecided } from './scan/classifier/classify-undecided.ts'
import { DETECTORS } from './scan/detectors.ts'
import { findEncodedRuns } from './scan/encoded.ts'
import { mergeFindings } from './scan/merge.ts'
import { normalizeText } from './scan/normalize.ts'
import { ENTITY_TYPES, type DetectOptions, type EntityType, type Finding } from './scan/types.ts'

export type { EntityType, Finding } from './scan/types.ts'

interface ScanInput {
  readonly text: string
  /** Types to look for; all types when omitted. */
  readonly types?: readonly EntityType[]
  /** Let the learned prompt-injection model decide what the rules leave undecided (off when omitted). */
  readonly learned?: boolean
}

export function scanContent(input: ScanInput): Finding[] {
  const wanted = new Set<EntityType>(input.types ?? ENTITY_TYPES)
  if (input.text.length === 0 || wanted.size === 0) return []
  const normalized = normalizeText(input.text)
  const options: DetectOptions = { learned: input.learned === true }
  const found: Finding[] = []
  for (const finding of detect(normalized.text, wanted, options)) {
    found.push({ ...finding, ...normalized.toOriginal(finding.start, finding.end) })
  }
  const runs = findEncodedRuns(normalized.text)
  if (runs.length > 0) {
    // The decoded runs are scanned as one text, a blank line apart, so that the detectors are
    // set up once rather than once per run.
    const starts: number[] = []
    let length = 0
    for (const run of runs) {
      starts.push(length)
      length += run.text.length + RUN_SEPARATOR.length
    }
    const decoded = normalizeText(runs.map((run) => run.text).join(RUN_SEPARATOR))
    for (const finding of detect(decoded.text, wanted, options)) {
      const joined = decoded.toOriginal(finding.start, finding.end)
      const index = runIndexAt(starts, joined.start)
      const run = runs[index]!
      const offset = starts[index]!
      if (joined.end > offset + run.text.length) continue
      const encoded = run.toEncoded(joined.start - offset, joined.end - offset)
      found.push({ ...finding, ...normalized.toOriginal(encoded.start, encoded.end) })
    }
  }
  return mergeFindings(found)
}

const RUN_SEPARATOR = '\n\n'

/** The last run starting at or before `at` (binary search over the runs' start offsets). */
function runIndexAt(starts: readonly number[], at: number): number {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (starts[mid]! <= at) low = mid
    else high = mid - 1
  }
  return low
}

/** Every wanted detector's findings on normalized text, offsets into that text. */
function detect(text: string, wanted: ReadonlySet<EntityType>, options: DetectOptions): Finding[] {
  const found: Finding[] = []
  for (const detector of DETECTORS) {
    if (!detector.types.some((type) => wanted.has(type))) continue
    for (const finding of detector.detect(text, wanted, options)) {
      if (wanted.has(finding.type) && finding.end > finding.start) found.push(finding)
    }
  }
  return found
}

interface ScanBatchInput {
  readonly texts: readonly string[]
  readonly learned?: boolean
  /** The project's own prompt-injection classifier reads what the rules leave undecided. */
  readonly classifier?: ClassifierSettings
}

/** Several texts in one pool task: findings per text, offsets into that text. */
export function scanContentBatch(input: ScanBatchInput): Finding[][] | Promise<Finding[][]> {
  const findings = input.texts.map((text) => scanContent({ text, ...(input.learned === undefined ? {} : { learned: input.learned }) }))
  return input.classifier === undefined ? findings : classifyUndecided(input.texts, findings, input.classifier)
}
