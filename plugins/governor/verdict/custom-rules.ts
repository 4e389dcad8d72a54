// A project's custom rules: checked when saved (a bad or unsafe regex is refused then), compiled
// once per settings version, and matched against text at request time without ever refusing it.
import type { CustomRule } from '../../../proxy/project.ts'
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
    const matcher = rule.regex ? regexCounter(rule.pattern) : keywordCounter(rule.pattern)
    if (matcher === undefined) skipped.push(rule.id)
    else compiled.push({ rule, count: matcher })
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

function keywordCounter(keyword: string): CompiledRule['count'] | undefined {
  const needle = keyword.toLowerCase()
  if (needle.trim() === '') return undefined
  return (_text, lower) => {
    let count = 0
    for (let at = lower.indexOf(needle); at !== -1 && count < MAX_COUNTED_MATCHES; at = lower.indexOf(needle, at + needle.length)) count++
    return count
  }
}

function regexCounter(source: string): CompiledRule['count'] | undefined {
  if (unsafeRegexReason(source) !== undefined) return undefined
  const pattern = new RegExp(source, RULE_REGEX_FLAGS)
  return (text) => {
    let count = 0
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match !== null && count < MAX_COUNTED_MATCHES; match = pattern.exec(text)) {
      count++
      // A zero-width match (a lookahead) would otherwise be found at the same place forever.
      if (match[0] === '') pattern.lastIndex++
    }
    return count
  }
}
