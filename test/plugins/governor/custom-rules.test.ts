// Custom rules: checked when saved (unsafe or invalid regexes refused), matched case-insensitively
// at request time, and never failing a request.
import t from 'tap'
import type { CustomRule } from '../../../plugins/governor/state.ts'
import { compileRules, matchRules, ruleProblem } from '../../../plugins/governor/logic/verdict/custom-rules.ts'
import { unsafeRegexReason } from '../../../plugins/governor/logic/verdict/safe-regex.ts'

const rule = (pattern: string, regex: boolean, id = 'rule_1'): CustomRule => ({ id, name: id, pattern, regex, weight: 10, severity: 'MEDIUM' })

t.test('refuses regexes that can backtrack catastrophically, with the reason', async (t) => {
  for (const pattern of ['(a+)+$', '(a*)*b', '(\\w+\\s?)+$', '(a|ab)*c', '(?:x+y?)+z', '([a-z]+)*@', '(a|b){2,}']) {
    t.match(unsafeRegexReason(pattern), /repeated group/, pattern)
  }
  t.match(unsafeRegexReason('(a)\\1'), /backreferences/)
  t.match(unsafeRegexReason('(?<x>a)\\k<x>'), /backreferences/)
  t.match(unsafeRegexReason('a+b+c+d+e+'), /at most 4 unbounded/)
  t.match(unsafeRegexReason('x*'), /matches empty text/)
  t.match(unsafeRegexReason('(?:ab)?'), /matches empty text/)
  t.match(unsafeRegexReason('a('), /not a valid regular expression/)
  t.match(unsafeRegexReason('a'.repeat(201)), /longer than 200/)
})

t.test('accepts the patterns projects write', async (t) => {
  for (const pattern of [
    '\\bproject\\s+falcon\\b',
    'acme(?:corp| corporation)',
    '\\d{3}-\\d{4}',
    '[A-Z]{2}\\d{6}',
    '(ab){2}',
    '(?:foo|bar)baz',
    '(?<name>x)y',
    '\\p{Lu}{3,5}',
    '[(+*]+x',
    '(?<=a)b',
  ]) {
    t.equal(unsafeRegexReason(pattern), undefined, pattern)
  }
})

t.test('a keyword must not be empty, a regex must be safe', async (t) => {
  t.equal(ruleProblem({ pattern: 'acme', regex: false }), undefined)
  t.match(ruleProblem({ pattern: '   ', regex: false }), /empty/)
  t.equal(ruleProblem({ pattern: '(a+)+', regex: false }), undefined, 'a keyword is matched literally')
  t.match(ruleProblem({ pattern: '(a+)+', regex: true }), /repeated group/)
})

t.test('keywords match case-insensitively and regexes with their own flags, counted across texts', async (t) => {
  const { compiled } = compileRules([rule('Project Falcon', false, 'rule_k'), rule('\\bfalcon-\\d+\\b', true, 'rule_r'), rule('absent', false, 'rule_x')])
  const matches = matchRules(compiled, ['About PROJECT falcon and project Falcon.', 'See FALCON-7 and falcon-12, not falcon-x.'])
  t.same(
    matches.map((m) => [m.rule.id, m.count]),
    [
      ['rule_k', 2],
      ['rule_r', 2],
    ],
  )
})

t.test('a zero-width pattern counts each place once instead of looping', async (t) => {
  const { compiled } = compileRules([rule('(?=ab)', true)])
  t.same(
    matchRules(compiled, ['ab ab ab']).map((m) => m.count),
    [3],
  )
})

t.test('a stored rule that no longer passes the check is left out at request time, not failed on', async (t) => {
  const { compiled, skipped } = compileRules([rule('(a+)+$', true, 'rule_bad'), rule('ok', false, 'rule_good')])
  t.same(skipped, ['rule_bad'])
  t.same(
    matchRules(compiled, ['ok aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!']).map((m) => m.rule.id),
    ['rule_good'],
  )
})
