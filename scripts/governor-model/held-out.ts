// Scores of every row by a model that never saw the row's source: one model per fold, trained on
// the other folds. These scores set the thresholds and give the figures of the manifest and of
// eval:governor.
import { SCRIPT_GROUPS, type ScriptGroup } from '../../workers/scan/injection-features.ts'
import { bestWindow, type SentenceSums, type Weights } from '../../workers/scan/injection-score.ts'
import type { Row } from './dataset.ts'
import type { EncodedText } from './encode.ts'
import { FOLDS, foldsOf } from './folds.ts'
import { train, type TrainOptions } from './trainer.ts'

/** The best window's logit of an encoded text under a model (-Infinity for a text without sentences). */
export function textLogit(encoded: EncodedText, model: { readonly weights: Weights; readonly bias: number }): number {
  const sums: SentenceSums[] = encoded.sentences.map((_, s) => {
    let wordSum = 0
    let charSum = 0
    const words = encoded.words[s]!
    const chars = encoded.chars[s]!
    for (let k = 0; k < words.length; k++) wordSum += model.weights[words[k]!]!
    for (let k = 0; k < chars.length; k++) charSum += model.weights[chars[k]!]!
    return { wordSum, wordCount: words.length, charSum, charCount: chars.length }
  })
  return bestWindow(encoded.sentences, sums, model.bias)?.logit ?? -Infinity
}

export function heldOutLogits(rows: readonly Row[], encoded: readonly EncodedText[], options: TrainOptions): Float64Array {
  const folds = foldsOf(rows)
  const logits = new Float64Array(rows.length)
  for (let fold = 0; fold < FOLDS; fold++) {
    const texts = rows.flatMap((row, i) => (folds[i] === fold ? [] : [{ encoded: encoded[i]!, attack: row.label === 'attack' }]))
    const model = train(texts, options)
    rows.forEach((_, i) => {
      if (folds[i] === fold) logits[i] = textLogit(encoded[i]!, model)
    })
  }
  return logits
}

/** Share of benign texts the model may flag, in each script and overall. */
export const BENIGN_FLAG_RATE = 0.01
/** Fewest benign texts of a script for a threshold of its own; scripts with fewer take the highest threshold. */
const MIN_BENIGN_PER_SCRIPT = 40

/** The logit above which fewer than `rate` of the scores lie. */
export function thresholdFor(scores: readonly number[], rate: number): number {
  const sorted = [...scores].sort((a, b) => b - a)
  return sorted[Math.floor(sorted.length * rate)] ?? Infinity
}

/**
 * A threshold per script: the overall one, raised where that script's benign texts score higher
 * (a language whose only benign texts are documentation can look like its attacks).
 */
export function calibrateThresholds(rows: readonly Row[], encoded: readonly EncodedText[], logits: Float64Array): Record<ScriptGroup, number> {
  const benign = rows.flatMap((row, i) => (row.label === 'benign' ? [i] : []))
  const overall = thresholdFor(
    benign.map((i) => logits[i]!),
    BENIGN_FLAG_RATE,
  )
  const own = new Map<ScriptGroup, number>()
  for (const group of SCRIPT_GROUPS) {
    const scores = benign.filter((i) => encoded[i]!.script === group).map((i) => logits[i]!)
    if (scores.length >= MIN_BENIGN_PER_SCRIPT) own.set(group, Math.max(overall, thresholdFor(scores, BENIGN_FLAG_RATE)))
  }
  const highest = Math.max(overall, ...own.values())
  return Object.fromEntries(SCRIPT_GROUPS.map((group) => [group, own.get(group) ?? highest])) as Record<ScriptGroup, number>
}
