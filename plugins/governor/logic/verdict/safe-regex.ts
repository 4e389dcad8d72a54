// Decides whether a project's regular expression is safe to run on any text before it is saved.
// JavaScript's engine backtracks, so patterns that can take exponential (or high polynomial) time
// are refused up front: backreferences, repeated groups that hold a repetition or an alternation
// ("(a+)+", "(a|ab)*"), and more than a few unbounded repetitions in a row.

export const MAX_PATTERN_CHARS = 200
const MAX_UNBOUNDED_REPETITIONS = 4
export const RULE_REGEX_FLAGS = 'giu'

interface Group {
  /** Something inside repeats (*, +, {n,m} with m > 1). */
  repeats: boolean
  alternates: boolean
}

type Previous = { readonly kind: 'atom' } | { readonly kind: 'group'; readonly group: Group } | undefined

const BOUNDED = /^\{(\d+)(,(\d*))?\}/

/** Why the pattern is refused, or undefined when it may be saved. */
export function unsafeRegexReason(source: string): string | undefined {
  if (source.length === 0) return 'the pattern is empty'
  if (source.length > MAX_PATTERN_CHARS) return `the pattern is longer than ${MAX_PATTERN_CHARS} characters`
  let compiled: RegExp
  try {
    compiled = new RegExp(source, RULE_REGEX_FLAGS)
  } catch (err) {
    return `the pattern is not a valid regular expression (${(err as Error).message})`
  }
  const structural = structuralProblem(source)
  if (structural !== undefined) return structural
  if (compiled.test('')) return 'the pattern matches empty text'
  return undefined
}

function structuralProblem(source: string): string | undefined {
  const stack: Group[] = [{ repeats: false, alternates: false }]
  let previous: Previous
  let unbounded = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) return 'backreferences are not allowed'
      if ('pPu'.includes(next) && source[i + 2] === '{') i = source.indexOf('}', i)
      else i += 1
      previous = { kind: 'atom' }
    } else if (c === '[') {
      i = classEnd(source, i)
      previous = { kind: 'atom' }
    } else if (c === '(') {
      stack.push({ repeats: false, alternates: false })
      i += groupPrefixLength(source, i) - 1
      previous = undefined
    } else if (c === ')') {
      const group = stack.pop()!
      const parent = stack.at(-1)!
      parent.repeats ||= group.repeats
      parent.alternates ||= group.alternates
      previous = { kind: 'group', group }
    } else if (c === '|') {
      stack.at(-1)!.alternates = true
      previous = undefined
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && BOUNDED.test(source.slice(i)))) {
      const bounded = c === '{' ? BOUNDED.exec(source.slice(i))! : undefined
      const isUnbounded = c === '*' || c === '+' || (bounded !== undefined && bounded[2] !== undefined && bounded[3] === '')
      const repeats = isUnbounded || (bounded !== undefined && Number(bounded[3] ?? bounded[1]) > 1)
      if (isUnbounded && ++unbounded > MAX_UNBOUNDED_REPETITIONS) return `at most ${MAX_UNBOUNDED_REPETITIONS} unbounded repetitions (*, +, {n,}) are allowed`
      if (repeats && previous?.kind === 'group' && (previous.group.repeats || previous.group.alternates)) {
        return 'a repeated group must not hold a repetition or an alternation (nested quantifiers backtrack exponentially)'
      }
      if (repeats) stack.at(-1)!.repeats = true
      if (bounded !== undefined) i += bounded[0].length - 1
      if (source[i + 1] === '?') i++
      previous = undefined
    } else {
      previous = { kind: 'atom' }
    }
  }
  return undefined
}

/** Index of the `]` that closes the class opened at `start`. */
function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++
    else if (source[i] === ']') return i
  }
  return source.length
}

/** Length of "(", "(?:", "(?=", "(?!", "(?<=", "(?<!" or "(?<name>". */
function groupPrefixLength(source: string, start: number): number {
  if (source[start + 1] !== '?') return 1
  if (source[start + 2] === '<' && source[start + 3] !== '=' && source[start + 3] !== '!') return source.indexOf('>', start) - start + 1
  return source[start + 2] === '<' ? 4 : 3
}
