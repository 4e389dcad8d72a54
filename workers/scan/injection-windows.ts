// The windows the learned prompt-injection model scores: runs of one to a few consecutive
// sentences, and the whole text. An instruction planted in a long email is one or two sentences;
// scored as part of the whole email it drowns, scored alone it stands out. A jailbreak spread
// over a page is seen whole.
import type { Sentence } from './injection-features.ts'

/** Most sentences in one window (besides the whole text). */
export const WINDOW_SENTENCES = 3
/** Most code units in one window of a few sentences. */
export const WINDOW_CHARS = 800

/** A window as the range of sentences [first, last] it covers. */
export interface Window {
  readonly first: number
  readonly last: number
}

/** Every window of the sentences, in order; the whole text last (unless it is one sentence). */
export function windowsOf(sentences: readonly Sentence[]): Window[] {
  const windows: Window[] = []
  for (let first = 0; first < sentences.length; first++) {
    const from = sentences[first]!.start
    for (let last = first; last < sentences.length && last < first + WINDOW_SENTENCES; last++) {
      if (last > first && sentences[last]!.end - from > WINDOW_CHARS) break
      windows.push({ first, last })
    }
  }
  if (sentences.length > 1 && !windows.some((w) => w.first === 0 && w.last === sentences.length - 1)) windows.push({ first: 0, last: sentences.length - 1 })
  return windows
}
