// A tiny ONNX text classifier and its WordPiece tokenizer.json, written by hand so that the tests
// know exactly what it scores: input_ids -> Gather(embedding) -> ReduceMean over the tokens ->
// two logits [benign, injection]. Every token adds nothing, except TRIGGER, which adds 4 to the
// injection logit: a window's probability is sigmoid(4 × triggers / tokens, [CLS] and [SEP] counted).
import type { Test } from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshDataDir } from './start-gateway.ts'

export const TRIGGER = 'override'
const TRIGGER_LOGIT = 4
const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'please', TRIGGER, '##s', 'fine', 'the', 'weather', 'is', '.', ',']

/** The probability the model gives a window of `tokens` tokens (specials included) holding `triggers` triggers. */
export function probabilityOf(triggers: number, tokens: number): number {
  return 1 / (1 + Math.exp((-TRIGGER_LOGIT * triggers) / tokens))
}

export interface TinyClassifier {
  readonly dir: string
  readonly model: string
  readonly tokenizer: string
}

export function writeTinyClassifier(t: Test): TinyClassifier {
  const dir = freshDataDir(t)
  const model = join(dir, 'model.onnx')
  const tokenizer = join(dir, 'tokenizer.json')
  writeFileSync(model, tinyModel())
  writeFileSync(tokenizer, JSON.stringify(tinyTokenizer()))
  return { dir, model, tokenizer }
}

export function tinyTokenizer(): object {
  const special = (id: string) => ({ id, ids: [VOCAB.indexOf(id)], tokens: [id] })
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((token, id) => [token, id])),
    },
  }
}

// ONNX is protobuf: each field a key (number << 3 | wire type) and a varint or a length-prefixed body.
const VARINT = 0
const BYTES = 2
const FLOAT = 1
const INT64 = 7
const ATTRIBUTE_INTS = 7
const ATTRIBUTE_INT = 2

function varint(value: number): number[] {
  const out: number[] = []
  let v = value
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
  return out
}

function field(number: number, value: number | string | Uint8Array | number[]): number[] {
  if (typeof value === 'number') return [...varint((number << 3) | VARINT), ...varint(value)]
  const body = typeof value === 'string' ? [...new TextEncoder().encode(value)] : [...value]
  return [...varint((number << 3) | BYTES), ...varint(body.length), ...body]
}

function valueInfo(name: string, elemType: number, dims: readonly string[]): number[] {
  const shape = dims.flatMap((dim) => field(1, field(2, dim)))
  return field(1, name).concat(field(2, field(1, [...field(1, elemType), ...field(2, shape)])))
}

function node(op: string, inputs: readonly string[], output: string, attributes: number[][] = []): number[] {
  return [
    ...inputs.flatMap((input) => field(1, input)),
    ...field(2, output),
    ...field(3, `${op}_node`),
    ...field(4, op),
    ...attributes.flatMap((a) => field(5, a)),
  ]
}

function tinyModel(): Uint8Array {
  const embedding = new Float32Array(VOCAB.length * 2)
  embedding[VOCAB.indexOf(TRIGGER) * 2 + 1] = TRIGGER_LOGIT
  const initializer = [...field(1, VOCAB.length), ...field(1, 2), ...field(2, FLOAT), ...field(8, 'embedding'), ...field(9, new Uint8Array(embedding.buffer))]
  const graph = [
    ...field(1, node('Gather', ['embedding', 'input_ids'], 'embedded', [[...field(1, 'axis'), ...field(3, 0), ...field(20, ATTRIBUTE_INT)]])),
    ...field(
      1,
      node('ReduceMean', ['embedded'], 'logits', [
        [...field(1, 'axes'), ...field(8, 1), ...field(20, ATTRIBUTE_INTS)],
        [...field(1, 'keepdims'), ...field(3, 0), ...field(20, ATTRIBUTE_INT)],
      ]),
    ),
    ...field(2, 'tiny-injection-classifier'),
    ...field(5, initializer),
    ...field(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    ...field(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    ...field(12, valueInfo('logits', FLOAT, ['batch', 'labels'])),
  ]
  const opset = [...field(1, ''), ...field(2, 13)]
  return new Uint8Array([...field(1, 8), ...field(2, 'tollgate-tests'), ...field(7, graph), ...field(8, opset)])
}
