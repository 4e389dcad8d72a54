// The module specifiers a TypeScript source imports, with their lines: static imports and
// re-exports (`import type` and `export … from` included), side-effect imports, dynamic
// `import()` and `typeof import()` types. Read by a small lexer, so that comments, strings and
// regular expressions that merely look like imports are not taken for them. (The native
// TypeScript compiler offers no JavaScript API to ask.)

export interface ImportSite {
  readonly specifier: string
  /** 1-based. */
  readonly line: number
}

/** A string or template literal of the source, where it starts, and whether it is plain text. */
interface Literal {
  readonly text: string
  readonly at: number
  /** A template with a `${}` substitution has no fixed text. */
  readonly fixed: boolean
}

// After one of these, a `/` starts a regular expression rather than a division.
const BEFORE_REGEX = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^'])
const KEYWORDS_BEFORE_REGEX = /\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/

/**
 * The source with each literal replaced by a placeholder (`\u0000<index>\u0000`) and each comment
 * by a space, and the literals in order.
 */
function lex(source: string): { code: string; literals: Literal[] } {
  const literals: Literal[] = []
  let code = ''
  let i = 0
  // Only the code's tail tells a regular expression from a division.
  const tail = () => code.slice(-64).trimEnd()
  while (i < source.length) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i)
      i = end === -1 ? source.length : end
      code += ' '
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2)
      i = end === -1 ? source.length : end + 2
      code += ' '
    } else if (c === '"' || c === "'") {
      let j = i + 1
      let text = ''
      while (j < source.length && source[j] !== c && source[j] !== '\n') {
        if (source[j] === '\\') j++
        text += source[j] ?? ''
        j++
      }
      code += `\u0000${literals.length}\u0000`
      literals.push({ text, at: i, fixed: true })
      i = j + 1
    } else if (c === '`') {
      const { end, text, fixed } = templateEnd(source, i + 1)
      code += `\u0000${literals.length}\u0000`
      literals.push({ text, at: i, fixed })
      i = end
    } else if (c === '/' && (BEFORE_REGEX.has(tail().at(-1) ?? '') || KEYWORDS_BEFORE_REGEX.test(tail()))) {
      i = regexEnd(source, i + 1)
      code += ' '
    } else {
      code += c
      i++
    }
  }
  return { code, literals }
}

function countNewlines(text: string): number {
  let n = 0
  for (const c of text) if (c === '\n') n++
  return n
}

/** Where the template literal whose text starts at `from` ends (after its closing backtick). */
function templateEnd(source: string, from: number): { end: number; text: string; fixed: boolean } {
  let text = ''
  let fixed = true
  let i = from
  while (i < source.length) {
    const c = source[i]!
    if (c === '\\') {
      text += source[i + 1] ?? ''
      i += 2
    } else if (c === '`') {
      return { end: i + 1, text, fixed }
    } else if (c === '$' && source[i + 1] === '{') {
      fixed = false
      // The substitution's braces nest; a string or template inside it is skipped whole.
      let depth = 1
      i += 2
      while (i < source.length && depth > 0) {
        const d = source[i]!
        if (d === '{') depth++
        else if (d === '}') depth--
        else if (d === '`') {
          i = templateEnd(source, i + 1).end
          continue
        } else if (d === '"' || d === "'") {
          i++
          while (i < source.length && source[i] !== d) i += source[i] === '\\' ? 2 : 1
        }
        i++
      }
    } else {
      text += c
      i++
    }
  }
  return { end: source.length, text, fixed }
}

/** Where the regular expression whose body starts at `from` ends (after its flags). */
function regexEnd(source: string, from: number): number {
  let i = from
  let inClass = false
  while (i < source.length && source[i] !== '\n') {
    const c = source[i]!
    if (c === '\\') i++
    else if (c === '[') inClass = true
    else if (c === ']') inClass = false
    else if (c === '/' && !inClass) {
      i++
      while (i < source.length && /\w/.test(source[i]!)) i++
      return i
    }
    i++
  }
  return i
}

const PLACEHOLDER = '\u0000(\\d+)\u0000'
const IMPORT_FORMS = [
  // import … from 'x', import type … from 'x', export … from 'x', export type … from 'x'
  new RegExp(`\\bfrom\\s*${PLACEHOLDER}`, 'g'),
  // import 'x'
  new RegExp(`\\bimport\\s*${PLACEHOLDER}`, 'g'),
  // import('x'), typeof import('x')
  new RegExp(`\\bimport\\s*\\(\\s*${PLACEHOLDER}`, 'g'),
]

export function importsOf(source: string): ImportSite[] {
  const { code, literals } = lex(source)
  const sites: { literal: Literal; index: number }[] = []
  for (const form of IMPORT_FORMS) {
    for (const match of code.matchAll(form)) {
      const index = Number(match[1])
      const literal = literals[index]!
      if (literal.fixed) sites.push({ literal, index })
    }
  }
  return sites.sort((a, b) => a.index - b.index).map(({ literal }) => ({ specifier: literal.text, line: countNewlines(source.slice(0, literal.at)) + 1 }))
}
