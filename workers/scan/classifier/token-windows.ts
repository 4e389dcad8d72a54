// A text longer than the classifier's context is read in windows of at most that many tokens,
// each overlapping the next by half, so that an instruction planted anywhere in a long document is
// read whole in at least one window (unless it is itself longer than half the context).
import type { Token } from './tokenizer.ts'

export interface TokenWindow {
  readonly tokens: readonly Token[]
  /** UTF-16 offsets of the text the window covers. */
  readonly start: number
  readonly end: number
}

/** Windows of at most `size` tokens covering every token; a text of `size` tokens or fewer is one window. */
export function tokenWindows(tokens: readonly Token[], size: number): TokenWindow[] {
  if (tokens.length === 0) return []
  const stride = Math.max(1, Math.floor(size / 2))
  const windows: TokenWindow[] = []
  for (let first = 0; ; first += stride) {
    const last = Math.min(first + size, tokens.length)
    const slice = tokens.slice(Math.max(0, last - size), last)
    windows.push({ tokens: slice, start: slice[0]!.start, end: slice.at(-1)!.end })
    if (last === tokens.length) return windows
  }
}
