// A project's own prompt-injection classifier (plugins.governor.classifier): an ONNX text
// classifier and its Hugging Face tokenizer.json, read from local files and run with
// onnxruntime-node on the CPU. Each window of the text is one inference; the text's reading is
// its most suspicious window. Opened once per thread and kept.
import { readFile } from 'node:fs/promises'
import type { InferenceSession, Tensor } from 'onnxruntime-node'
import { parseTokenizer, type Tokenizer } from './tokenizer.ts'
import { tokenWindows } from './token-windows.ts'

export interface ClassifierSettings {
  /** Paths of the ONNX model and of its tokenizer.json. */
  readonly model: string
  readonly tokenizer: string
  /** A window is flagged when its probability of the injection label passes this. */
  readonly threshold: number
  /** The index of the injection label among the model's outputs. */
  readonly injectionLabel: number
  /** Most tokens per window, special tokens included. */
  readonly maxTokens: number | undefined
}

export interface ClassifierReading {
  /** UTF-16 offsets of the most suspicious window. */
  readonly start: number
  readonly end: number
  readonly probability: number
  readonly flagged: boolean
}

export interface Classifier {
  /** Undefined for a text without tokens. */
  read(text: string): Promise<ClassifierReading | undefined>
  release(): Promise<void>
}

/** Used when neither the settings nor tokenizer.json say: BERT's and DeBERTa's context. */
const DEFAULT_MAX_TOKENS = 512
const FED_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids'])

/** Throws an Error whose message names the file and what is wrong with it. */
export async function openClassifier(settings: ClassifierSettings): Promise<Classifier> {
  let tokenizer: Tokenizer
  try {
    tokenizer = parseTokenizer(await readFile(settings.tokenizer, 'utf8'))
  } catch (err) {
    throw new Error(`cannot use the tokenizer ${settings.tokenizer}: ${reasonOf(err)}`)
  }
  // Loaded here, not with the module: a gateway without a classifier never maps the runtime.
  const ort = await import('onnxruntime-node')
  let session: InferenceSession
  try {
    session = await ort.InferenceSession.create(await readFile(settings.model), { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 })
  } catch (err) {
    throw new Error(`cannot load the model ${settings.model}: ${reasonOf(err)}`)
  }
  const unfed = session.inputNames.filter((name) => !FED_INPUTS.has(name))
  if (unfed.length > 0 || !session.inputNames.includes('input_ids')) {
    await session.release()
    throw new Error(
      `the model ${settings.model} takes the inputs ${session.inputNames.join(', ')}; a classifier takes input_ids, and may take attention_mask and token_type_ids`,
    )
  }
  const maxTokens = settings.maxTokens ?? tokenizer.maxLength ?? DEFAULT_MAX_TOKENS
  const body = maxTokens - tokenizer.before.length - tokenizer.after.length
  if (body < 1) throw new Error(`a window of ${maxTokens} tokens leaves no room for text beside the special tokens`)

  async function probabilityOf(ids: readonly number[]): Promise<number> {
    const shape = [1, ids.length]
    const feeds: Record<string, Tensor> = {}
    for (const name of session.inputNames) {
      const values = name === 'input_ids' ? ids : ids.map(() => (name === 'attention_mask' ? 1 : 0))
      feeds[name] = new ort.Tensor('int64', BigInt64Array.from(values, BigInt), shape)
    }
    const output = (await session.run(feeds))[session.outputNames[0]!]!
    const logits = Array.from(output.data as Float32Array)
    if (settings.injectionLabel >= logits.length)
      throw new Error(`it has ${logits.length} labels; injectionLabel ${settings.injectionLabel} is not one of them`)
    return softmax(logits)[settings.injectionLabel]!
  }

  const classifier: Classifier = {
    async read(text) {
      let best: ClassifierReading | undefined
      for (const window of tokenWindows(tokenizer.tokenize(text), body)) {
        const probability = await probabilityOf([...tokenizer.before, ...window.tokens.map((token) => token.id), ...tokenizer.after])
        if (best === undefined || probability > best.probability)
          best = { start: window.start, end: window.end, probability, flagged: probability > settings.threshold }
      }
      return best
    },
    release: () => session.release(),
  }
  try {
    // A trial reading, so that a model whose outputs do not fit stops the start, not a request.
    await classifier.read('hello')
  } catch (err) {
    await session.release()
    throw new Error(`the model ${settings.model} cannot classify a text: ${reasonOf(err)}`)
  }
  return classifier
}

function softmax(logits: readonly number[]): number[] {
  const top = Math.max(...logits)
  const exps = logits.map((logit) => Math.exp(logit - top))
  const sum = exps.reduce((a, b) => a + b, 0)
  return exps.map((e) => e / sum)
}

function reasonOf(err: unknown): string {
  const error = err as { code?: string; message?: string }
  if (error.code === 'ENOENT') return 'no such file'
  if (error.code === 'EACCES') return 'permission denied'
  if (error.code === 'EISDIR') return 'it is a directory'
  return (error.message ?? String(err)).split('\n')[0]!
}
