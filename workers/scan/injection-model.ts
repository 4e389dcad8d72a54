// The learned prompt-injection model (trained by `npm run train:governor`, see model/NOTICE.md
// for the data's attribution): loaded once per thread from model/, it finds the text's
// highest-scoring window and flags it when the window's logit passes the threshold of the text's
// script. Loading takes a few milliseconds and 1 MB (2^18 float32 weights).
import { readFileSync } from 'node:fs'
import { BUCKETS, foldText, HASH_BITS, scriptOf, sentencesOf, type ScriptGroup } from './injection-features.ts'
import { bestWindow, sentenceSums } from './injection-score.ts'

export const WEIGHTS_FILE = 'prompt-injection.weights'
export const MANIFEST_FILE = 'prompt-injection.manifest.json'

export interface Manifest {
  readonly model: string
  readonly data: { readonly file: string; readonly sha256: string; readonly rows: number }
  readonly seed: number
  readonly training: object
  readonly features: { readonly hashBits: number } & Record<string, unknown>
  readonly weights: { readonly file: string; readonly encoding: 'int16le'; readonly buckets: number; readonly scale: number; readonly sha256: string }
  readonly bias: number
  /** Logit above which a window is an attack, by the script of the text. */
  readonly thresholds: Readonly<Record<ScriptGroup, number>>
  readonly validation: object
}

interface LoadedModel {
  readonly weights: Float32Array
  readonly bias: number
  readonly thresholds: Readonly<Record<ScriptGroup, number>>
}

const MODEL_DIR = new URL('./model/', import.meta.url)

export function loadModel(dir: URL = MODEL_DIR): LoadedModel {
  const manifest = JSON.parse(readFileSync(new URL(MANIFEST_FILE, dir), 'utf8')) as Manifest
  if (manifest.features.hashBits !== HASH_BITS || manifest.weights.buckets !== BUCKETS) {
    throw new Error(`${MANIFEST_FILE} was trained for ${manifest.weights.buckets} buckets, the scanner hashes into ${BUCKETS}: run npm run train:governor`)
  }
  const bytes = readFileSync(new URL(manifest.weights.file, dir))
  if (bytes.length !== BUCKETS * 2) throw new Error(`${manifest.weights.file} holds ${bytes.length} bytes, not ${BUCKETS * 2}: run npm run train:governor`)
  const weights = new Float32Array(BUCKETS)
  for (let i = 0; i < BUCKETS; i++) weights[i] = bytes.readInt16LE(i * 2) * manifest.weights.scale
  return { weights, bias: manifest.bias, thresholds: manifest.thresholds }
}

let shipped: LoadedModel | undefined

interface ModelReading {
  /** Offsets into the scored text. */
  readonly start: number
  readonly end: number
  /** The window's probability of being an attack, by the model. */
  readonly probability: number
  /** The window's logit passes the threshold of the text's script. */
  readonly flagged: boolean
}

/** The model's highest-scoring window of the text, flagged or not; undefined for a text without sentences. */
export function modelReading(text: string, model: LoadedModel = (shipped ??= loadModel())): ModelReading | undefined {
  const codes = foldText(text)
  const sentences = sentencesOf(codes)
  const best = bestWindow(sentences, sentenceSums(codes, sentences, model.weights), model.bias)
  if (best === undefined) return undefined
  return { start: best.start, end: best.end, probability: 1 / (1 + Math.exp(-best.logit)), flagged: best.logit > model.thresholds[scriptOf(codes)] }
}
