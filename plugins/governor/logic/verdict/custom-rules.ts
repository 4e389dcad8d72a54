// A project's custom rules: checked when saved (a bad or unsafe regex is refused then), compiled
// once per settings version, and matched against text at request time without ever refusing it.
import type { CustomRule } from '../../state.ts'
import { MAX_PATTERN_CHARS, RULE_REGEX_FLAGS, unsafeRegexReason } from './safe-regex.ts'
import type { RuleMatch } from './types.ts'

/** Matches counted per rule and text; enough to tell one mention from many. */
const MAX_COUNTED_MATCHES = 100

export interface CompiledRule {
  readonly rule: CustomRule
  count(text: string, lower: string): number
}

/** Why a rule cannot be saved, or undefined when it can. */
export function ruleProblem(rule: Pick<CustomRule, 'pattern' | 'regex'>): string | undefined {
  if (rule.regex) return unsafeRegexReason(rule.pattern)
  if (rule.pattern.trim() === '') return 'the keyword is empty'
  if (rule.pattern.length > MAX_PATTERN_CHARS) return `the keyword is longer than ${MAX_PATTERN_CHARS} characters`
  return undefined
}

/** Rules that no longer compile are left out (they were checked when saved); the names of those left out are returned. */
export function compileRules(rules: readonly CustomRule[]): { compiled: CompiledRule[]; skipped: string[] } {
  const compiled: CompiledRule[] = []
  const skipped: string[] = []
  for (const rule of rules) {
    const find = finderOf(rule)
    if (find === undefined) skipped.push(rule.id)
    else compiled.push({ rule, count: (text, lower) => find(text, lower, MAX_COUNTED_MATCHES) })
  }
  return { compiled, skipped }
}

export function matchRules(rules: readonly CompiledRule[], texts: readonly string[]): RuleMatch[] {
  if (rules.length === 0) return []
  const lowered = texts.map((text) => text.toLowerCase())
  const matches: RuleMatch[] = []
  for (const compiled of rules) {
    let count = 0
    for (let i = 0; i < texts.length; i++) count += compiled.count(texts[i]!, lowered[i]!)
    if (count > 0) matches.push({ rule: compiled.rule, count })
  }
  return matches
}

interface RuleSpan {
  readonly start: number
  readonly end: number
}

/** Where a rule that may be saved matches a text, as request-time matching finds it (at most `limit` places). */
export function findRuleSpans(rule: Pick<CustomRule, 'pattern' | 'regex'>, text: string, limit = MAX_COUNTED_MATCHES): RuleSpan[] {
  const spans: RuleSpan[] = []
  finderOf(rule)?.(text, text.toLowerCase(), limit, spans)
  return spans
}

/** Counts matches up to `limit`, and adds each one's place to `spans` when given. */
type Finder = (text: string, lower: string, limit: number, spans?: RuleSpan[]) => number

function finderOf(rule: Pick<CustomRule, 'pattern' | 'regex'>): Finder | undefined {
  return rule.regex ? regexFinder(rule.pattern) : keywordFinder(rule.pattern)
}

function keywordFinder(keyword: string): Finder | undefined {
  const needle = keyword.toLowerCase()
  if (needle.trim() === '') return undefined
  // Keywords match without regard to case, in the lowercased text.
  return (_text, lower, limit, spans) => {
    let count = 0
    for (let at = lower.indexOf(needle); at !== -1 && count < limit; at = lower.indexOf(needle, at + needle.length)) {
      count++
      spans?.push({ start: at, end: at + needle.length })
    }
    return count
  }
}

function regexFinder(source: string): Finder | undefined {
  if (unsafeRegexReason(source) !== undefined) return undefined
  const pattern = new RegExp(source, RULE_REGEX_FLAGS)
  return (text, _lower, limit, spans) => {
    let count = 0
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match !== null && count < limit; match = pattern.exec(text)) {
      count++
      spans?.push({ start: match.index, end: match.index + match[0].length })
      // A zero-width match (a lookahead) would otherwise be found at the same place forever.
      if (match[0] === '') pattern.lastIndex++
    }
    return count
  }
}
