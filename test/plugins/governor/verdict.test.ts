// The verdict as a pure function: levels, weights, floors, approval, and monotonicity.
import t from 'tap'
import fc from 'fast-check'
import { ACTION_TYPES, type ActionType } from '../../../proxy/pipeline/ai-request.ts'
import type { CustomRule } from '../../../plugins/governor/state.ts'
import { ENTITY_TYPES, type EntityType } from '../../../workers/scan/types.ts'
import { ACTION_RISK, RISK_CLASS_POINTS } from '../../../plugins/governor/logic/verdict/action-risk.ts'
import { computeVerdict } from '../../../plugins/governor/logic/verdict/compute-verdict.ts'
import { levelOf, levelRank } from '../../../plugins/governor/logic/verdict/levels.ts'
import type { RuleMatch, ScoredFinding, VerdictInput } from '../../../plugins/governor/logic/verdict/types.ts'

const base: VerdictInput = { actionType: 'customer_support', findings: [], ruleMatches: [], autoApproveThreshold: 50 }
const finding = (type: EntityType, score = 0.95): ScoredFinding => ({ type, score })
const rule = (overrides: Partial<CustomRule> = {}): CustomRule => ({
  id: 'rule_1',
  name: 'competitor names',
  pattern: 'acme',
  regex: false,
  weight: 25,
  severity: 'HIGH',
  ...overrides,
})
const pointsOf = (input: VerdictInput) => computeVerdict(input).reasons.reduce((sum, r) => sum + r.points, 0)

t.test('levels are low below 30, medium to 59, high to 79 and critical from 80', async (t) => {
  t.same([0, 29, 30, 59, 60, 79, 80, 100].map(levelOf), ['low', 'low', 'medium', 'medium', 'high', 'high', 'critical', 'critical'])
})

t.test('the action type alone gives 5, 20 or 35 points by its risk class', async (t) => {
  t.equal(computeVerdict(base).score, 5)
  t.equal(computeVerdict({ ...base, actionType: 'policy_warning' }).score, 20)
  t.equal(computeVerdict({ ...base, actionType: 'refund_denial' }).score, 35)
  t.same(computeVerdict(base).reasons, [{ code: 'action_risk', points: 5, detail: 'customer_support is a low-risk action' }])
})

t.test('findings weigh by sensitivity: secrets, then special-category and national or financial ids, then contact data, then URLs and dates', async (t) => {
  const alone = (type: EntityType) => computeVerdict({ ...base, findings: [finding(type)] }).score - 5
  t.ok(alone('SECRET') > alone('US_SSN'))
  t.ok(alone('UK_NHS') > alone('CREDIT_CARD'))
  t.ok(alone('CREDIT_CARD') > alone('EMAIL_ADDRESS'))
  t.ok(alone('EMAIL_ADDRESS') > alone('URL'))
  t.equal(alone('URL'), alone('DATE_TIME'))
})

t.test('repeated findings of one type add a quarter of their points each, up to four more', async (t) => {
  const emails = (n: number) => computeVerdict({ ...base, findings: Array.from({ length: n }, () => finding('EMAIL_ADDRESS')) }).score
  t.same([1, 2, 5, 9].map(emails), [5 + 12, 5 + 15, 5 + 24, 5 + 24])
})

t.test('a finding that only matched a format counts half and opens a violation one severity lower', async (t) => {
  const weak = computeVerdict({ ...base, findings: [finding('US_SSN', 0.3)] })
  t.equal(weak.score, 5 + 15)
  t.match(weak.violations, [{ category: 'US_SSN', severity: 'MEDIUM' }])
  t.match(computeVerdict({ ...base, findings: [finding('US_SSN')] }).violations, [{ category: 'US_SSN', severity: 'HIGH', type: 'PRIVACY' }])
})

t.test('violations list each category of medium severity or above once, typed PRIVACY, SECURITY or POLICY', async (t) => {
  const verdict = computeVerdict({
    ...base,
    findings: [finding('EMAIL_ADDRESS'), finding('EMAIL_ADDRESS'), finding('URL'), finding('SECRET'), finding('PROMPT_INJECTION')],
    ruleMatches: [
      { rule: rule(), count: 2 },
      { rule: rule({ id: 'rule_2', severity: 'LOW' }), count: 1 },
    ],
  })
  t.same(
    verdict.violations.map((v) => [v.category, v.type, v.severity, v.count]),
    [
      ['EMAIL_ADDRESS', 'PRIVACY', 'MEDIUM', 2],
      ['PROMPT_INJECTION', 'SECURITY', 'HIGH', 1],
      ['SECRET', 'SECURITY', 'CRITICAL', 1],
      ['rule_1', 'POLICY', 'HIGH', 2],
    ],
  )
})

t.test('a secret or special-category data lifts the risk to at least high and is never approved', async (t) => {
  for (const type of ['SECRET', 'AU_MEDICARE'] as const) {
    const verdict = computeVerdict({ ...base, findings: [finding(type)], autoApproveThreshold: 100 })
    t.equal(verdict.level, 'high', type)
    t.equal(verdict.criticalFinding, true)
    t.equal(verdict.approved, false, 'even under a threshold of 100')
  }
  const special = computeVerdict({ ...base, findings: [finding('AU_MEDICARE')] })
  t.equal(special.score, 60, '5 + 50 points, lifted to the high floor')
  t.same(special.reasons.at(-1), { code: 'critical_floor', points: 5, detail: 'a critical finding lifts the risk to at least high' })
  t.equal(computeVerdict({ ...base, findings: [finding('SECRET')] }).score, 65, 'already high: nothing to lift')
})

t.test('personal data for a recipient in the EU/EEA or UK adds 15 points; elsewhere or without personal data it adds none', async (t) => {
  const withEmail = { ...base, findings: [finding('EMAIL_ADDRESS')] }
  const plain = computeVerdict(withEmail).score
  t.equal(computeVerdict({ ...withEmail, recipientCountry: 'de' }).score, plain + 15)
  t.equal(computeVerdict({ ...withEmail, recipientCountry: 'NO' }).score, plain + 15)
  t.equal(computeVerdict({ ...withEmail, recipientCountry: 'GB' }).score, plain + 15)
  t.equal(computeVerdict({ ...withEmail, recipientCountry: 'US' }).score, plain)
  t.equal(computeVerdict({ ...base, findings: [finding('URL')], recipientCountry: 'DE' }).score, computeVerdict({ ...base, findings: [finding('URL')] }).score)
  t.match(computeVerdict({ ...withEmail, recipientCountry: 'FR' }).reasons, [{}, {}, { code: 'jurisdiction', points: 15 }])
})

t.test('a sender whose role or department does not fit the action adds 15 points', async (t) => {
  const hr = { ...base, actionType: 'hr_message' as const }
  t.equal(computeVerdict({ ...hr, department: 'Sales' }).score, 35)
  t.match(computeVerdict({ ...hr, department: 'Sales' }).reasons, [{}, { code: 'role_mismatch', points: 15 }])
  t.equal(computeVerdict({ ...hr, department: 'Human Resources' }).score, 20)
  t.equal(computeVerdict({ ...hr, senderRole: 'HR business partner', department: 'Sales' }).score, 20, 'either field may fit')
  t.equal(computeVerdict(hr).score, 20, 'an unknown sender is not guessed at')
  t.equal(computeVerdict({ ...base, actionType: 'medical_advice', senderRole: 'support agent' }).score, 35)
  t.equal(computeVerdict({ ...base, actionType: 'medical_advice', senderRole: 'Nurse practitioner' }).score, 20)
  t.equal(computeVerdict({ ...base, actionType: 'legal_advice', senderRole: 'engineer', department: 'Legal' }).score, 20)
  t.equal(computeVerdict({ ...base, department: 'Sales' }).score, 5, 'customer support may come from anyone')
})

t.test('a matched custom rule adds its weight and opens a POLICY violation at its severity', async (t) => {
  const verdict = computeVerdict({ ...base, ruleMatches: [{ rule: rule({ weight: 40, severity: 'CRITICAL' }), count: 3 }] })
  t.equal(verdict.score, 60, 'the critical rule also lifts the level to high')
  t.match(verdict.reasons, [{}, { code: 'custom_rule', points: 40, detail: 'custom rule "competitor names" (3 matches)' }])
  t.match(verdict.violations, [{ category: 'rule_1', type: 'POLICY', severity: 'CRITICAL', count: 3 }])
  t.equal(verdict.approved, false)
  t.same(computeVerdict({ ...base, ruleMatches: [{ rule: rule({ weight: 10, severity: 'LOW' }), count: 1 }] }).violations, [], 'a LOW rule adds points only')
})

t.test('approved means a score at or below the threshold and no critical finding', async (t) => {
  const input = { ...base, findings: [finding('EMAIL_ADDRESS')] }
  t.equal(computeVerdict({ ...input, autoApproveThreshold: 17 }).approved, true, 'score 17 at threshold 17')
  t.equal(computeVerdict({ ...input, autoApproveThreshold: 16 }).approved, false)
  t.equal(computeVerdict({ ...base, autoApproveThreshold: 0 }).approved, false)
})

t.test('scores are capped at 100 and the reasons always add up to the score', async (t) => {
  const verdict = computeVerdict({ ...base, actionType: 'suspension', findings: [finding('SECRET'), finding('CREDIT_CARD'), finding('UK_NHS')] })
  t.equal(verdict.score, 100)
  t.equal(verdict.level, 'critical')
  t.match(verdict.reasons.at(-1), { code: 'cap' })
  t.equal(pointsOf({ ...base, actionType: 'suspension', findings: [finding('SECRET'), finding('CREDIT_CARD'), finding('UK_NHS')] }), 100)
})

// Half of the findings come from a few types, so repeats of one type (and their caps) are common.
const findingArb = fc.record({
  type: fc.oneof(fc.constantFrom<EntityType>('EMAIL_ADDRESS', 'SECRET', 'US_SSN', 'URL'), fc.constantFrom(...ENTITY_TYPES)),
  score: fc.oneof(fc.constantFrom(0.3, 0.95), fc.double({ min: 0, max: 1, noNaN: true })),
})
const ruleMatchArb: fc.Arbitrary<RuleMatch> = fc.record({
  rule: fc.record({
    id: fc.constantFrom('rule_a', 'rule_b', 'rule_c'),
    name: fc.constant('r'),
    pattern: fc.constant('x'),
    regex: fc.constant(false),
    weight: fc.integer({ min: 0, max: 100 }),
    severity: fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
  }),
  count: fc.integer({ min: 1, max: 5 }),
})
const inputArb: fc.Arbitrary<VerdictInput> = fc.record({
  actionType: fc.constantFrom(...ACTION_TYPES),
  senderRole: fc.option(fc.constantFrom('nurse', 'engineer', 'HR partner', 'counsel'), { nil: undefined }),
  department: fc.option(fc.constantFrom('Sales', 'Legal', 'People', 'Clinical'), { nil: undefined }),
  recipientCountry: fc.option(fc.constantFrom('DE', 'US', 'GB', 'JP', 'IS'), { nil: undefined }),
  findings: fc.array(findingArb, { maxLength: 12 }),
  ruleMatches: fc.uniqueArray(ruleMatchArb, { maxLength: 3, selector: (m) => m.rule.id }),
  autoApproveThreshold: fc.integer({ min: 0, max: 100 }),
})

t.test('adding a finding never lowers the score or the level, and never turns a refusal into an approval', async (t) => {
  fc.assert(
    fc.property(inputArb, findingArb, (input, extra) => {
      const before = computeVerdict(input)
      const after = computeVerdict({ ...input, findings: [...input.findings, extra] })
      return after.score >= before.score && levelRank(after.level) >= levelRank(before.level) && (before.approved || !after.approved)
    }),
    { numRuns: 2000 },
  )
})

t.test('adding a matching custom rule never lowers the score', async (t) => {
  fc.assert(
    fc.property(inputArb, ruleMatchArb, (input, extra) => {
      const others = input.ruleMatches.filter((m) => m.rule.id !== extra.rule.id)
      return computeVerdict({ ...input, ruleMatches: [...others, extra] }).score >= computeVerdict({ ...input, ruleMatches: others }).score
    }),
    { numRuns: 1000 },
  )
})

t.test('a riskier action never lowers the score, whatever the sender and content', async (t) => {
  const rank = (action: ActionType) => RISK_CLASS_POINTS[ACTION_RISK[action]]
  fc.assert(
    fc.property(inputArb, fc.constantFrom(...ACTION_TYPES), fc.constantFrom(...ACTION_TYPES), (input, a, b) => {
      fc.pre(rank(a) < rank(b))
      return computeVerdict({ ...input, actionType: b }).score >= computeVerdict({ ...input, actionType: a }).score
    }),
    { numRuns: 2000 },
  )
})

t.test('every score is a whole number from 0 to 100 that the reasons add up to', async (t) => {
  fc.assert(
    fc.property(inputArb, (input) => {
      const verdict = computeVerdict(input)
      return (
        Number.isInteger(verdict.score) &&
        verdict.score >= 0 &&
        verdict.score <= 100 &&
        pointsOf(input) === verdict.score &&
        verdict.level === levelOf(verdict.score)
      )
    }),
    { numRuns: 1000 },
  )
})
