// Trains the Governor's prompt-injection model and writes what the scanner loads:
// workers/scan/model/prompt-injection.weights (int16 weights) and prompt-injection.manifest.json
// (data hash, seed, features, thresholds, held-out figures). The same data and seed give the
// same files byte for byte.
//
//   npm run train:governor                 (GOVERNOR_TRAIN_FILE=path overrides the data file)
import { createHash } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { BUCKETS, HASH_BITS } from '../workers/scan/injection-features.ts'
import { WINDOW_CHARS, WINDOW_SENTENCES } from '../workers/scan/injection-windows.ts'
import { MANIFEST_FILE, WEIGHTS_FILE, type Manifest } from '../workers/scan/injection-model.ts'
import { DEFAULT_DATA_FILE, loadDataset } from './governor-model/dataset.ts'
import { encodeText } from './governor-model/encode.ts'
import { figuresOf, percent } from './governor-model/figures.ts'
import { FOLDS } from './governor-model/folds.ts'
import { benchBenignTexts, raiseForHardNegatives } from './governor-model/hard-negatives.ts'
import { BENIGN_FLAG_RATE, calibrateThresholds, heldOutLogits } from './governor-model/held-out.ts'
import { quantize } from './governor-model/quantize.ts'
import { train, TRAIN_OPTIONS } from './governor-model/trainer.ts'

const file = process.env.GOVERNOR_TRAIN_FILE ?? fileURLToPath(DEFAULT_DATA_FILE)
if (!existsSync(file)) {
  process.stderr.write(
    `train:governor: needs ../shared/data/prompt-injection/train.jsonl beside the repository (not found at ${file}), or GOVERNOR_TRAIN_FILE naming a file of the same format\n`,
  )
  process.exit(1)
}
const started = performance.now()
const dataset = loadDataset(file)
const encoded = dataset.rows.map((row) => encodeText(row.text))
const logits = heldOutLogits(dataset.rows, encoded, TRAIN_OPTIONS)
const model = train(
  dataset.rows.map((row, i) => ({ encoded: encoded[i]!, attack: row.label === 'attack' })),
  TRAIN_OPTIONS,
)
const { bytes, scale, dequantized } = quantize(model.weights)
const thresholds = raiseForHardNegatives(calibrateThresholds(dataset.rows, encoded, logits), { weights: dequantized, bias: model.bias }, benchBenignTexts())
const figures = figuresOf(dataset.rows, (i) => logits[i]! > thresholds[encoded[i]!.script])

const manifest: Manifest = {
  model: 'logistic regression over hashed word uni/bi-grams and character 3-5-grams, scored on sentence windows',
  data: { file: 'train.jsonl', sha256: dataset.sha256, rows: dataset.rows.length },
  seed: TRAIN_OPTIONS.seed,
  training: TRAIN_OPTIONS,
  features: {
    hashBits: HASH_BITS,
    words: 'unigrams and bigrams of letter/digit runs',
    chars: '3-, 4- and 5-grams, blank runs as one space',
    normalisation:
      'scanner normalisation (NFKC, invisible characters, tag characters), lower case, Latin/Greek/Cyrillic accents dropped, lookalike letters and leet digits read as Latin inside mixed words; each group divided by the square root of its feature count',
    windows: { sentences: WINDOW_SENTENCES, chars: WINDOW_CHARS, wholeText: true },
  },
  weights: { file: WEIGHTS_FILE, encoding: 'int16le', buckets: BUCKETS, scale, sha256: createHash('sha256').update(bytes).digest('hex') },
  bias: model.bias,
  thresholds,
  validation: {
    folds: FOLDS,
    by: 'source (jailbreak collections of one lineage, BIPIA, self-instruct as one group each; React docs by translation)',
    benignFlagRate: BENIGN_FLAG_RATE,
    figures,
  },
}
writeFileSync(new URL(`../workers/scan/model/${WEIGHTS_FILE}`, import.meta.url), bytes)
writeFileSync(new URL(`../workers/scan/model/${MANIFEST_FILE}`, import.meta.url), `${JSON.stringify(manifest, null, 2)}\n`)

console.log(`data ${file} (${dataset.rows.length} rows, sha256 ${dataset.sha256}), seed ${TRAIN_OPTIONS.seed}`)
console.log(
  `held out by source, ${FOLDS} folds: attacks flagged ${percent(figures.attacks)} (${figures.attacks.flagged}/${figures.attacks.of}), benign flagged ${percent(figures.benign)} (${figures.benign.flagged}/${figures.benign.of})`,
)
console.log('by family:')
for (const [family, share] of Object.entries(figures.byFamily)) console.log(`  ${family.padEnd(24)} ${percent(share).padStart(6)} of ${share.of}`)
console.log('by language (attacks flagged | benign flagged):')
for (const [lang, shares] of Object.entries(figures.byLanguage))
  console.log(
    `  ${lang.padEnd(4)} ${percent(shares.attacks).padStart(6)} of ${String(shares.attacks.of).padStart(4)} | ${percent(shares.benign).padStart(6)} of ${shares.benign.of}`,
  )
console.log(
  `thresholds (logit) by script: ${Object.entries(thresholds)
    .map(([group, t]) => `${group} ${t.toFixed(3)}`)
    .join(', ')}`,
)
console.log(`weights sha256 ${manifest.weights.sha256}; trained in ${((performance.now() - started) / 1000).toFixed(0)} s`)
