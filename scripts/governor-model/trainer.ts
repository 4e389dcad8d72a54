// Logistic regression by AdaGrad over the hashed features, one example at a time in an order
// drawn from the seed. Every sum runs in a fixed order, so a seed and a data set give the same
// weights bit for bit. An example is a range of sentences of one encoded text: the whole text,
// or, for benign texts, each window the scanner will score (they teach it that a lone sentence
// of an ordinary text is ordinary).
import { BUCKETS } from '../../workers/scan/injection-features.ts'
import { windowsOf } from '../../workers/scan/injection-windows.ts'
import type { EncodedText } from './encode.ts'
import { seededRandom } from '../../proxy/kit/seeded-random.ts'
import { shuffledIndexes } from './prng.ts'

export interface TrainingText {
  readonly encoded: EncodedText
  readonly attack: boolean
}

export interface TrainOptions {
  readonly seed: number
  readonly epochs: number
  readonly learningRate: number
  readonly l2: number
  /** Weight of each benign window example, relative to a whole text. */
  readonly windowWeight: number
}

export const TRAIN_OPTIONS: TrainOptions = { seed: 33, epochs: 3, learningRate: 0.1, l2: 1e-6, windowWeight: 0.1 }

export interface LinearModel {
  readonly weights: Float64Array
  readonly bias: number
}

interface Example {
  readonly text: number
  readonly first: number
  readonly last: number
  readonly label: number
  weight: number
}

function examplesOf(texts: readonly TrainingText[], windowWeight: number): Example[] {
  const examples: Example[] = []
  texts.forEach((text, index) => {
    const sentences = text.encoded.sentences
    if (sentences.length === 0) return
    examples.push({ text: index, first: 0, last: sentences.length - 1, label: text.attack ? 1 : 0, weight: 1 })
    if (text.attack) return
    for (const window of windowsOf(sentences)) {
      if (window.first === 0 && window.last === sentences.length - 1) continue
      examples.push({ text: index, first: window.first, last: window.last, label: 0, weight: windowWeight })
    }
  })
  // The classes weigh the same in total, whatever their counts.
  let positive = 0
  let negative = 0
  for (const example of examples) {
    if (example.label === 1) positive += example.weight
    else negative += example.weight
  }
  for (const example of examples) example.weight *= example.label === 1 ? (positive + negative) / (2 * positive) : (positive + negative) / (2 * negative)
  return examples
}

export function train(texts: readonly TrainingText[], options: TrainOptions): LinearModel {
  const examples = examplesOf(texts, options.windowWeight)
  const weights = new Float64Array(BUCKETS)
  const squares = new Float64Array(BUCKETS)
  let bias = 0
  let biasSquares = 0
  const random = seededRandom(options.seed)
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = shuffledIndexes(examples.length, random)
    for (const index of order) {
      const example = examples[index]!
      const encoded = texts[example.text]!.encoded
      let wordSum = 0
      let wordCount = 0
      let charSum = 0
      let charCount = 0
      for (let s = example.first; s <= example.last; s++) {
        const words = encoded.words[s]!
        const chars = encoded.chars[s]!
        for (let k = 0; k < words.length; k++) wordSum += weights[words[k]!]!
        for (let k = 0; k < chars.length; k++) charSum += weights[chars[k]!]!
        wordCount += words.length
        charCount += chars.length
      }
      const wordScale = wordCount > 0 ? 1 / Math.sqrt(wordCount) : 0
      const charScale = charCount > 0 ? 1 / Math.sqrt(charCount) : 0
      const logit = bias + wordSum * wordScale + charSum * charScale
      const error = (1 / (1 + Math.exp(-logit)) - example.label) * example.weight
      biasSquares += error * error
      bias -= (options.learningRate * error) / Math.sqrt(biasSquares + 1e-8)
      for (let s = example.first; s <= example.last; s++) {
        update(encoded.words[s]!, error * wordScale)
        update(encoded.chars[s]!, error * charScale)
      }
    }
  }
  return { weights, bias }

  function update(buckets: Uint32Array, gradient: number): void {
    for (let k = 0; k < buckets.length; k++) {
      const bucket = buckets[k]!
      const g = gradient + options.l2 * weights[bucket]!
      squares[bucket]! += g * g
      weights[bucket]! -= (options.learningRate * g) / Math.sqrt(squares[bucket]! + 1e-8)
    }
  }
}
