// The learned model's score of a window: a logistic regression over the window's hashed features,
// each group (words, characters) divided by the square root of its feature count, so that length
// is not evidence. The terms add up by sentence, so each sentence is hashed once and every window
// is scored from its sentences' sums.
import { sentenceFeatures, type FeatureSink, type Sentence } from './injection-features.ts'
import { windowsOf } from './injection-windows.ts'

export type Weights = Float32Array | Float64Array

/** One sentence's weight sums and feature counts, by group. */
export interface SentenceSums {
  wordSum: number
  wordCount: number
  charSum: number
  charCount: number
}

class SumSink implements FeatureSink {
  weights: Weights
  sums: SentenceSums = { wordSum: 0, wordCount: 0, charSum: 0, charCount: 0 }

  constructor(weights: Weights) {
    this.weights = weights
  }

  word(bucket: number): void {
    this.sums.wordSum += this.weights[bucket]!
    this.sums.wordCount++
  }

  char(bucket: number): void {
    this.sums.charSum += this.weights[bucket]!
    this.sums.charCount++
  }
}

export function sentenceSums(codes: Uint16Array, sentences: readonly Sentence[], weights: Weights): SentenceSums[] {
  const sink = new SumSink(weights)
  return sentences.map((sentence) => {
    sink.sums = { wordSum: 0, wordCount: 0, charSum: 0, charCount: 0 }
    sentenceFeatures(codes, sentence.start, sentence.end, sink)
    return sink.sums
  })
}

/** The logit of a window from its groups' sums and counts. */
export function logitOf(bias: number, wordSum: number, wordCount: number, charSum: number, charCount: number): number {
  return bias + (wordCount > 0 ? wordSum / Math.sqrt(wordCount) : 0) + (charCount > 0 ? charSum / Math.sqrt(charCount) : 0)
}

interface ScoredWindow {
  /** Code-unit offsets into the scored text. */
  readonly start: number
  readonly end: number
  readonly logit: number
}

/** The window with the highest logit (the first of equals), or undefined for a text without sentences. */
export function bestWindow(sentences: readonly Sentence[], sums: readonly SentenceSums[], bias: number): ScoredWindow | undefined {
  let best: ScoredWindow | undefined
  for (const window of windowsOf(sentences)) {
    let wordSum = 0
    let wordCount = 0
    let charSum = 0
    let charCount = 0
    for (let s = window.first; s <= window.last; s++) {
      const sum = sums[s]!
      wordSum += sum.wordSum
      wordCount += sum.wordCount
      charSum += sum.charSum
      charCount += sum.charCount
    }
    const logit = logitOf(bias, wordSum, wordCount, charSum, charCount)
    if (best === undefined || logit > best.logit) best = { start: sentences[window.first]!.start, end: sentences[window.last]!.end, logit }
  }
  return best
}
