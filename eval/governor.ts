// Scores the Governor's content detectors against the labelled eval set (pii_eval.jsonl, described
// in its README). Scoring rules from that README: a type is scored only on cases that target it;
// spans match when they overlap and have the same type; a case-level detected / not-detected
// score is reported beside the span score; weak entities are reported with and without; prompt
// injection is document classification, with recall per attack family (eval/injection-families.ts),
// also on the family sets in eval/data/prompt-injection-*.jsonl; secret-scanner
// negatives get their own number.
//
//   npm run eval:governor                 (PII_EVAL_FILE=path overrides the data file)
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { scanContent } from '../workers/scan-content.ts'
import { isDocumentedExample } from '../workers/scan/example-keys.ts'
import { isPlaceholder } from '../workers/scan/secret-values.ts'
import { ENTITY_TYPES, type EntityType, type Finding } from '../workers/scan/types.ts'
import { FAMILIES, familiesOf } from './injection-families.ts'
import { printHeldOut } from './injection-held-out.ts'

const GoldEntity = z.object({
  type: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  weak: z.boolean().optional(),
  checksum_valid: z.boolean().optional(),
  note: z.string().optional(),
})
const EvalCase = z.object({
  id: z.string(),
  source: z.string(),
  task: z.enum(['pii', 'secret', 'prompt_injection']),
  target_types: z.array(z.string()),
  text: z.string(),
  entities: z.array(GoldEntity),
  tags: z.array(z.string()).optional(),
})
type GoldEntity = z.infer<typeof GoldEntity>
type EvalCase = z.infer<typeof EvalCase>

const DEFAULT_FILE = new URL('../../shared/data/pii_eval.jsonl', import.meta.url)
// Attacks and benign requests written for this evaluation, labelled by family, in the order they
// were written. Each was written without sight of the rules that came after it; docs/detector-evaluation.md
// says which rules were then written against which set.
const FAMILY_SETS = [
  { file: new URL('./data/prompt-injection-families.jsonl', import.meta.url), title: 'Hand-written family set, used while writing the first rules' },
  {
    file: new URL('./data/prompt-injection-unseen.jsonl', import.meta.url),
    title: 'Set written after the first rules; the paraphrase signals were written against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-2.jsonl', import.meta.url),
    title: 'Set written apart from the rules; the weak cues were checked against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-3.jsonl', import.meta.url),
    title: 'Set written apart from the rules; the fiction signals were checked against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-4.jsonl', import.meta.url),
    title: 'Set written apart from the rules; the notice-language signals were written against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-5.jsonl', import.meta.url),
    title: 'Set written apart from the rules; measured untouched, then the settings-block and token-game signals were written against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-6.jsonl', import.meta.url),
    title: 'Set written apart from the rules; measured untouched, then the tool-and-link exfiltration signals were written against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-7.jsonl', import.meta.url),
    title: 'Set written apart from the rules; measured untouched, then the persona-erasure and rehearsal signals were written against it',
  },
  { file: new URL('./data/prompt-injection-unseen-8.jsonl', import.meta.url), title: 'Set written apart from the rules, never tuned on, kept unread' },
  {
    file: new URL('./data/prompt-injection-unseen-9.jsonl', import.meta.url),
    title:
      'Set written apart from the rules, in wording chosen to differ from every earlier set; measured untouched, then the setup-text signals were written against it',
  },
  {
    file: new URL('./data/prompt-injection-unseen-10.jsonl', import.meta.url),
    title: 'Set written after the setup-text pass, worded apart from every earlier set, never tuned on',
  },
  {
    file: new URL('./data/prompt-injection-languages.jsonl', import.meta.url),
    title: 'Set in German, French, Spanish, Italian, Portuguese and Dutch, measured untouched, then the other-language signals were written beside it',
  },
  {
    file: new URL('./data/prompt-injection-languages-unseen.jsonl', import.meta.url),
    title:
      'Set in the same six languages, written after those signals, worded apart from them; measured untouched, then the second other-language pass was written against it',
  },
  {
    file: new URL('./data/prompt-injection-languages-unseen-2.jsonl', import.meta.url),
    title: 'Set in the same six languages, written after the second pass, worded apart from every earlier one, never tuned on',
  },
  {
    file: new URL('./data/system-prompts.jsonl', import.meta.url),
    title:
      "Applications' own system prompts, no attack among them, written in four batches; the defense frames were written against the first three, never against the fourth",
  },
] as const
const FamilyCase = z.object({ family: z.string(), label: z.boolean(), text: z.string() })
const TARGETS: Readonly<Record<string, number>> = {
  CREDIT_CARD: 0.95,
  IBAN_CODE: 0.95,
  EMAIL_ADDRESS: 0.95,
  US_SSN: 0.95,
  IP_ADDRESS: 0.95,
  PHONE_NUMBER: 0.9,
  SECRET: 0.9,
}
const SECRET_SCANNERS = ['gitleaks/gitleaks', 'Yelp/detect-secrets']
const SUPPORTED = new Set<string>(ENTITY_TYPES)

/** Counts for precision/recall: predictions that hit gold, all predictions, gold that was hit, all gold. */
class Tally {
  matchedPredictions = 0
  predictions = 0
  matchedGold = 0
  gold = 0

  add(other: Tally): void {
    this.matchedPredictions += other.matchedPredictions
    this.predictions += other.predictions
    this.matchedGold += other.matchedGold
    this.gold += other.gold
  }

  get precision(): number {
    return this.predictions === 0 ? (this.gold === 0 ? 1 : 0) : this.matchedPredictions / this.predictions
  }

  get recall(): number {
    return this.gold === 0 ? 1 : this.matchedGold / this.gold
  }

  get f1(): number {
    const p = this.precision
    const r = this.recall
    return p + r === 0 ? 0 : (2 * p * r) / (p + r)
  }
}

interface TypeScore {
  cases: number
  span: Tally
  spanWithoutWeak: Tally
  spanWithoutDisputed: Tally
  caseLevel: Tally
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean => a.start < b.end && b.start < a.end

/**
 * Span tally for one case and type. Gold entities that `ignore` drops are left out, and so are
 * predictions that overlap only such entities (they are neither right nor wrong).
 */
function spanTally(gold: readonly GoldEntity[], predicted: readonly Finding[], ignore: (g: GoldEntity) => boolean): Tally {
  const tally = new Tally()
  const kept = gold.filter((g) => !ignore(g))
  const dropped = gold.filter(ignore)
  for (const p of predicted) {
    const hitsKept = kept.some((g) => overlaps(g, p))
    if (!hitsKept && dropped.some((g) => overlaps(g, p))) continue
    tally.predictions++
    if (hitsKept) tally.matchedPredictions++
  }
  for (const g of kept) {
    tally.gold++
    if (predicted.some((p) => overlaps(g, p))) tally.matchedGold++
  }
  return tally
}

function caseTally(expected: boolean, detected: boolean): Tally {
  const tally = new Tally()
  if (detected) tally.predictions = 1
  if (expected) tally.gold = 1
  if (detected && expected) {
    tally.matchedPredictions = 1
    tally.matchedGold = 1
  }
  return tally
}

function isDisputed(entity: GoldEntity, evalCase: EvalCase): boolean {
  if (entity.note !== undefined || entity.checksum_valid === false || (evalCase.tags ?? []).includes('regex-only-label')) return true
  return entity.type === 'SECRET' && isDeliberateNonSecret(evalCase.text.slice(entity.start, entity.end))
}

/**
 * Secret labels the detector declines by rule: a vendor's documented example key, or a body of
 * filler (a masking run, or one character repeated eight times or more). Some sources label them
 * secrets, others non-secrets; they are reported apart so the choice is visible.
 */
function isDeliberateNonSecret(value: string): boolean {
  return isDocumentedExample(value) || isPlaceholder(value) || /(.)\1{7,}/.test(value)
}

/** Stops with one line on stderr: what is missing or wrong, and how to fix it. */
function fail(message: string): never {
  process.stderr.write(`eval:governor: ${message}\n`)
  process.exit(1)
}

function loadCases(): EvalCase[] {
  const named = process.env.PII_EVAL_FILE
  const file = named ?? fileURLToPath(DEFAULT_FILE)
  if (!existsSync(file)) {
    fail(
      named === undefined
        ? `needs the labelled data set ../shared/data/pii_eval.jsonl (beside the repository), not found at ${file}; put it there or set PII_EVAL_FILE to a JSONL file of the same format`
        : `PII_EVAL_FILE names ${file}, which does not exist; point it at a JSONL file of labelled cases, or unset it to use ../shared/data/pii_eval.jsonl`,
    )
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, index) => {
      if (line.trim().length === 0) return []
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        fail(`line ${index + 1} of ${file} is not JSON`)
      }
      const evalCase = EvalCase.safeParse(parsed)
      if (!evalCase.success)
        fail(`line ${index + 1} of ${file} is not a labelled case: ${evalCase.error.issues[0]?.path.join('.')} ${evalCase.error.issues[0]?.message}`)
      return [evalCase.data]
    })
}

function newScore(): TypeScore {
  return { cases: 0, span: new Tally(), spanWithoutWeak: new Tally(), spanWithoutDisputed: new Tally(), caseLevel: new Tally() }
}

function main(): void {
  const cases = loadCases()
  const scores = new Map<string, TypeScore>()
  const secretNegatives = { cases: 0, flagged: 0 }
  const secretPositiveCases = new Tally()
  const injections: InjectionCase[] = []
  let scanMs = 0

  for (const evalCase of cases) {
    const wanted = evalCase.target_types.filter((t) => SUPPORTED.has(t)) as EntityType[]
    const started = performance.now()
    const findings = wanted.length > 0 ? scanContent({ text: evalCase.text, types: wanted }) : []
    scanMs += performance.now() - started

    for (const type of evalCase.target_types) {
      const score = scores.get(type) ?? newScore()
      scores.set(type, score)
      score.cases++
      const gold = evalCase.entities.filter((e) => e.type === type)
      const predicted = findings.filter((f) => f.type === type)
      score.caseLevel.add(caseTally(gold.length > 0, predicted.length > 0))
      if (type === 'PROMPT_INJECTION') {
        injections.push({ text: evalCase.text, attack: gold.length > 0, flagged: predicted.length > 0, families: familiesOf(evalCase.text) })
        continue
      }
      score.span.add(spanTally(gold, predicted, () => false))
      score.spanWithoutWeak.add(spanTally(gold, predicted, (g) => g.weak === true))
      score.spanWithoutDisputed.add(spanTally(gold, predicted, (g) => isDisputed(g, evalCase)))
      if (type === 'SECRET') {
        if (gold.length === 0 && SECRET_SCANNERS.some((s) => evalCase.source.startsWith(s))) {
          secretNegatives.cases++
          if (predicted.length > 0) secretNegatives.flagged++
        }
        if (gold.length > 0) secretPositiveCases.add(spanTally(gold, predicted, () => false))
      }
    }
  }

  printTable(scores)
  printTotals(scores)
  printPromptInjection(scores.get('PROMPT_INJECTION'))
  printFamilies('PROMPT_INJECTION recall per attack family (families by phrasing, eval/injection-families.ts):', injections)
  for (const set of FAMILY_SETS) printFamilies(`${set.title} (${fileURLToPath(set.file)}):`, loadFamilySet(set.file))
  printHeldOut()
  printSecretDetail(secretPositiveCases, secretNegatives)
  printDisputed(scores)
  printTargets(scores)
  console.log(`\n${cases.length} cases scanned in ${scanMs.toFixed(0)} ms (${((scanMs / cases.length) * 1000).toFixed(0)} µs per case)`)
}

const pct = (x: number): string => x.toFixed(3)
const pad = (text: string, width: number): string => text.padEnd(width)
const lpad = (text: string, width: number): string => text.padStart(width)

function printTable(scores: Map<string, TypeScore>): void {
  console.log('Span scores use overlap matching; "no weak" leaves out entities the source marks weak.')
  console.log('Case scores ask only whether a case holding the type was flagged for it.\n')
  const header = [
    pad('type', 26),
    lpad('cases', 5),
    lpad('gold', 5),
    lpad('pred', 5),
    lpad('P', 6),
    lpad('R', 6),
    lpad('F1', 6),
    lpad('R nw', 6),
    lpad('F1 nw', 6),
    lpad('case P', 7),
    lpad('case R', 7),
    lpad('case F1', 8),
  ].join(' ')
  console.log(header)
  console.log('-'.repeat(header.length))
  const rows = [...scores.entries()].filter(([type]) => type !== 'PROMPT_INJECTION').sort((a, b) => b[1].cases - a[1].cases)
  for (const [type, s] of rows) {
    if (!SUPPORTED.has(type)) continue
    console.log(
      [
        pad(type, 26),
        lpad(String(s.cases), 5),
        lpad(String(s.span.gold), 5),
        lpad(String(s.span.predictions), 5),
        lpad(pct(s.span.precision), 6),
        lpad(pct(s.span.recall), 6),
        lpad(pct(s.span.f1), 6),
        lpad(pct(s.spanWithoutWeak.recall), 6),
        lpad(pct(s.spanWithoutWeak.f1), 6),
        lpad(pct(s.caseLevel.precision), 7),
        lpad(pct(s.caseLevel.recall), 7),
        lpad(pct(s.caseLevel.f1), 8),
      ].join(' '),
    )
  }
  const missing = rows.filter(([type]) => !SUPPORTED.has(type)).map(([type, s]) => `${type} (${s.cases})`)
  if (missing.length > 0) console.log(`\nNot detected by the scanner (cases): ${missing.join(', ')}`)
}

function printTotals(scores: Map<string, TypeScore>): void {
  const implemented = { span: new Tally(), noWeak: new Tally(), caseLevel: new Tally() }
  const everything = { span: new Tally(), noWeak: new Tally(), caseLevel: new Tally() }
  for (const [type, s] of scores) {
    if (type === 'PROMPT_INJECTION') continue
    for (const bucket of SUPPORTED.has(type) ? [implemented, everything] : [everything]) {
      bucket.span.add(s.span)
      bucket.noWeak.add(s.spanWithoutWeak)
      bucket.caseLevel.add(s.caseLevel)
    }
  }
  console.log('\nMicro-averaged totals (span P / R / F1 | F1 without weak | case F1):')
  for (const [label, t] of [
    ['implemented types', implemented],
    ['all target types', everything],
  ] as const) {
    console.log(`  ${pad(label, 18)} ${pct(t.span.precision)} / ${pct(t.span.recall)} / ${pct(t.span.f1)} | ${pct(t.noWeak.f1)} | ${pct(t.caseLevel.f1)}`)
  }
}

function printPromptInjection(score: TypeScore | undefined): void {
  if (score === undefined) return
  const t = score.caseLevel
  console.log(`\nPROMPT_INJECTION (classification, ${score.cases} cases): P ${pct(t.precision)}  R ${pct(t.recall)}  F1 ${pct(t.f1)}`)
}

interface InjectionCase {
  readonly text: string
  readonly attack: boolean
  readonly flagged: boolean
  readonly families: readonly string[]
}

function loadFamilySet(file: URL): InjectionCase[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => FamilyCase.parse(JSON.parse(line)))
    .map((c) => {
      const flagged = scanContent({ text: c.text, types: ['PROMPT_INJECTION'] }).length > 0
      return { text: c.text, attack: c.label, flagged, families: c.label ? [c.family] : [] }
    })
}

/** Recall per family over the attacks (an attack in no family counts as "other"), and what became of the benign cases. */
function printFamilies(title: string, cases: readonly InjectionCase[]): void {
  const attacks = cases.filter((c) => c.attack)
  console.log(`\n${title}`)
  for (const family of [...FAMILIES, 'other']) {
    const members = attacks.filter((c) => (family === 'other' ? c.families.length === 0 : c.families.includes(family)))
    if (members.length === 0) continue
    const found = members.filter((c) => c.flagged).length
    console.log(`  ${pad(family, 22)} ${lpad(String(found), 3)} of ${lpad(String(members.length), 3)} flagged  recall ${pct(found / members.length)}`)
  }
  const benign = cases.filter((c) => !c.attack)
  const flagged = benign.filter((c) => c.flagged).length
  const caught = attacks.filter((c) => c.flagged).length
  if (attacks.length > 0)
    console.log(`  ${pad('all attacks', 22)} ${lpad(String(caught), 3)} of ${lpad(String(attacks.length), 3)} flagged  recall ${pct(caught / attacks.length)}`)
  console.log(`  ${pad('benign', 22)} ${lpad(String(flagged), 3)} of ${lpad(String(benign.length), 3)} flagged (false positives)`)
}

function printSecretDetail(positives: Tally, negatives: { cases: number; flagged: number }): void {
  console.log(`\nSECRET on cases that hold a secret: P ${pct(positives.precision)}  R ${pct(positives.recall)}  F1 ${pct(positives.f1)}`)
  const clean = negatives.cases - negatives.flagged
  console.log(
    `SECRET on gitleaks / detect-secrets negatives: ${negatives.flagged} of ${negatives.cases} flagged, ${clean} left alone (${pct(negatives.cases === 0 ? 1 : clean / negatives.cases)})`,
  )
}

function printDisputed(scores: Map<string, TypeScore>): void {
  const lines: string[] = []
  for (const [type, s] of scores) {
    if (s.spanWithoutDisputed.gold === s.span.gold || !SUPPORTED.has(type)) continue
    lines.push(
      `  ${pad(type, 14)} F1 ${pct(s.span.f1)} -> ${pct(s.spanWithoutDisputed.f1)} without ${s.span.gold - s.spanWithoutDisputed.gold} disputed label(s)`,
    )
  }
  if (lines.length === 0) return
  console.log('\nLabels the sources disagree on (sample SSNs, Luhn-invalid card, regex-only phone; secrets that are documented example keys or filler):')
  for (const line of lines) console.log(line)
}

function printTargets(scores: Map<string, TypeScore>): void {
  console.log('\nTargets (span F1, all labels | without weak | without disputed):')
  for (const [type, target] of Object.entries(TARGETS)) {
    const s = scores.get(type)
    if (s === undefined) continue
    const values = [s.span.f1, s.spanWithoutWeak.f1, s.spanWithoutDisputed.f1]
    const status =
      s.span.f1 >= target
        ? 'met'
        : s.spanWithoutDisputed.f1 >= target
          ? 'met once the disputed labels are left out'
          : s.spanWithoutWeak.f1 >= target
            ? 'met once weak labels are left out'
            : 'NOT met'
    console.log(`  ${pad(type, 14)} >= ${target}: ${values.map(pct).join(' | ')}  ${status}`)
  }
}

main()
