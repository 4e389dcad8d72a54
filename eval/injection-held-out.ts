// The prompt-injection model on source-held-out folds of ../shared/data/prompt-injection/train.jsonl:
// each row scored by a model trained without its source (scripts/governor-model/folds.ts), at the
// shipped thresholds, beside the phrase rules on the same row. Rules alone, model alone, and both
// as the scanner combines them (a rule hit stays; a mention the rules spare stays clean; the
// model decides the rest), per family, source and language. Then what any one threshold would
// let the model add: its operating curve on what the rules leave undecided, with the project's
// benign near-misses (eval/data, never trained on) scored by the shipped weights.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_DATA_FILE, loadDataset } from '../scripts/governor-model/dataset.ts'
import { encodeText } from '../scripts/governor-model/encode.ts'
import { figuresOf, percent, type Figures } from '../scripts/governor-model/figures.ts'
import { benchBenignTexts } from '../scripts/governor-model/hard-negatives.ts'
import { heldOutLogits, textLogit } from '../scripts/governor-model/held-out.ts'
import { operatingCurve } from '../scripts/governor-model/operating-curve.ts'
import { TRAIN_OPTIONS } from '../scripts/governor-model/trainer.ts'
import { loadModel } from '../workers/scan/injection-model.ts'
import { normalizeText } from '../workers/scan/normalize.ts'
import { ruleVerdict } from '../workers/scan/prompt-injection.ts'

export function printHeldOut(): void {
  const file = fileURLToPath(DEFAULT_DATA_FILE)
  if (!existsSync(file)) {
    console.log(`\nPrompt-injection model on held-out sources: skipped, ${file} not found`)
    return
  }
  const { rows } = loadDataset(file)
  const encoded = rows.map((row) => encodeText(row.text))
  const logits = heldOutLogits(rows, encoded, TRAIN_OPTIONS)
  const shipped = loadModel()
  const { thresholds } = shipped
  const verdicts = rows.map((row) => ruleVerdict(normalizeText(row.text).text).kind)
  const model = (i: number) => logits[i]! > thresholds[encoded[i]!.script]
  const runs = {
    rules: figuresOf(rows, (i) => verdicts[i] === 'attack'),
    model: figuresOf(rows, model),
    both: figuresOf(rows, (i) => verdicts[i] === 'attack' || (verdicts[i] === 'undecided' && model(i))),
  }
  console.log(`\nPrompt-injection on ${file}, each row scored by a model trained without its source (flagged: rules | model | both):`)
  line('all attacks', runs, (f) => f.attacks)
  line('all benign', runs, (f) => f.benign)
  console.log(' by family:')
  for (const family of Object.keys(runs.rules.byFamily)) line(`  ${family}`, runs, (f) => f.byFamily[family]!)
  console.log(' by source:')
  for (const source of Object.keys(runs.rules.bySource)) line(`  ${source}`, runs, (f) => f.bySource[source]!)
  console.log(' by language, attacks / benign:')
  for (const lang of Object.keys(runs.rules.byLanguage)) {
    line(`  ${lang} attacks`, runs, (f) => f.byLanguage[lang]!.attacks)
    line(`  ${lang} benign`, runs, (f) => f.byLanguage[lang]!.benign)
  }
  const undecided = (label: 'attack' | 'benign') => rows.flatMap((row, i) => (row.label === label && verdicts[i] === 'undecided' ? [logits[i]!] : []))
  const nearMisses = benchBenignTexts()
    .filter((text) => ruleVerdict(normalizeText(text).text).kind === 'undecided')
    .map((text) => textLogit(encodeText(text), shipped))
  console.log(' model on what the rules leave undecided, one threshold for every script (benign flagged → attacks flagged, near-misses flagged):')
  for (const point of operatingCurve(undecided('benign'), undecided('attack'), nearMisses)) {
    console.log(
      `  ${`${(100 * point.rate).toFixed(1)}%`.padStart(5)} (logit > ${point.threshold.toFixed(2)}) → ${percent(point.attacks).padStart(6)} of ${point.attacks.of} attacks, ${point.nearMisses.flagged} of ${point.nearMisses.of} near-misses`,
    )
  }
}

function line(label: string, runs: Readonly<Record<'rules' | 'model' | 'both', Figures>>, pick: (f: Figures) => { flagged: number; of: number }): void {
  const of = pick(runs.rules).of
  if (of === 0) return
  console.log(`  ${label.padEnd(44)} ${[runs.rules, runs.model, runs.both].map((f) => percent(pick(f)).padStart(6)).join(' | ')}  of ${of}`)
}
