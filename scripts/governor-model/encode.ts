// Texts as the model sees them: normalized as the scanner normalizes (normalize.ts), folded, cut
// into sentences, each sentence's features as bucket lists (words, then characters).
import { foldText, scriptOf, sentenceFeatures, sentencesOf, type FeatureSink, type ScriptGroup, type Sentence } from '../../workers/scan/injection-features.ts'
import { normalizeText } from '../../workers/scan/normalize.ts'

export interface EncodedText {
  readonly sentences: readonly Sentence[]
  /** Per sentence, its word features' buckets. */
  readonly words: readonly Uint32Array[]
  /** Per sentence, its character features' buckets. */
  readonly chars: readonly Uint32Array[]
  readonly script: ScriptGroup
}

class ListSink implements FeatureSink {
  words: number[] = []
  chars: number[] = []
  word(bucket: number): void {
    this.words.push(bucket)
  }
  char(bucket: number): void {
    this.chars.push(bucket)
  }
}

export function encodeText(text: string): EncodedText {
  const codes = foldText(normalizeText(text).text)
  const sentences = sentencesOf(codes)
  const words: Uint32Array[] = []
  const chars: Uint32Array[] = []
  for (const sentence of sentences) {
    const sink = new ListSink()
    sentenceFeatures(codes, sentence.start, sentence.end, sink)
    words.push(Uint32Array.from(sink.words))
    chars.push(Uint32Array.from(sink.chars))
  }
  return { sentences, words, chars, script: scriptOf(codes) }
}
