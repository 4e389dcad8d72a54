// The words a regular expression's every match starts with, read off its source: the prompt-
// injection detector tries a signal only where one of them starts instead of at every position.
/**
 * The words one of which every match of `source` starts with, at a word boundary (lower case), or
 * undefined when that cannot be read off simply (the pattern then always runs). Reads top-level
 * alternatives that start with \\b, each a literal prefix or a non-optional (?:…) or (?i:…) group of
 * them, after any lookbehinds (they look before the word, not into it). A word starts with an
 * ASCII letter, as the detector finds word starts by \\b's own ASCII rule, and may go on in
 * accented Latin letters ("révèle").
 */
export function leadingWords(source: string, atBoundary = false): string[] | undefined {
  const words: string[] = []
  for (const alternative of splitAlternatives(source)) {
    const bounded = atBoundary || alternative.startsWith('\\b')
    let rest = alternative.startsWith('\\b') ? alternative.slice(2) : alternative
    while (rest.startsWith('(?<!') || rest.startsWith('(?<=')) {
      const close = closingParen(rest, 0)
      if (close < 0) return undefined
      rest = rest.slice(close + 1)
    }
    // A group, or one that ignores case ((?i:…)): words are compared in lower case either way.
    const group = /^\(\?i?:/.exec(rest)?.[0]
    if (group !== undefined) {
      const close = closingParen(rest, 0)
      const after = rest[close + 1]
      if (close < 0 || (after !== undefined && '?*{'.includes(after))) return undefined
      // Unless a \\b came first, every alternative inside must start with one.
      const inner = leadingWords(rest.slice(group.length, close), bounded)
      if (inner === undefined) return undefined
      words.push(...inner)
      continue
    }
    if (!bounded) return undefined
    const literal = /^[A-Za-z'][A-Za-z\u00C0-\u024F']*/.exec(rest)?.[0] ?? ''
    const next = rest[literal.length] ?? ''
    // A quantifier right after the literal makes its last letter optional.
    const word = next !== '' && '?*{'.includes(next) ? literal.slice(0, -1) : literal
    if (word.length < 2) return undefined
    words.push(word.toLowerCase())
  }
  return words
}

function splitAlternatives(source: string): string[] {
  const parts: string[] = []
  let depth = 0
  let inClass = false
  let start = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) {
      parts.push(source.slice(start, i))
      start = i + 1
    }
  }
  parts.push(source.slice(start))
  return parts
}

function closingParen(source: string, open: number): number {
  let depth = 0
  let inClass = false
  for (let i = open; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
  }
  return -1
}
