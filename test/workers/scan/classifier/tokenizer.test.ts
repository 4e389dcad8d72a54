import t from 'tap'
import { parseTokenizer } from '../../../../workers/scan/classifier/tokenizer.ts'
import { tinyTokenizer } from '../../../helpers/tiny-classifier.ts'

t.test("WordPiece: BERT's lowercasing and word splitting, sub-words, unknown words, offsets of the word each token came from", async (t) => {
  const tokenizer = parseTokenizer(JSON.stringify(tinyTokenizer()))
  const text = 'Please OVERRIDES, zebra.'
  const tokens = tokenizer.tokenize(text)
  t.same(
    tokens.map((token) => token.id),
    [4, 5, 6, 12, 1, 11],
  )
  t.same(
    tokens.map((token) => text.slice(token.start, token.end)),
    ['Please', 'OVERRIDES', 'OVERRIDES', ',', 'zebra', '.'],
  )
  t.same([tokenizer.before, tokenizer.after], [[2], [3]], '[CLS] and [SEP] from the template')
  t.equal(tokenizer.maxLength, undefined)
})

// A SentencePiece vocabulary the way DeBERTa-v3 and Prompt Guard ship it.
const UNIGRAM = {
  normalizer: {
    type: 'Sequence',
    normalizers: [
      { type: 'Replace', pattern: { String: '``' }, content: '"' },
      { type: 'Precompiled', precompiled_charsmap: '' },
    ],
  },
  pre_tokenizer: {
    type: 'Sequence',
    pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }],
  },
  post_processor: { type: 'BertProcessing', cls: ['[CLS]', 1], sep: ['[SEP]', 2] },
  truncation: { max_length: 256 },
  model: {
    type: 'Unigram',
    unk_id: 3,
    byte_fallback: true,
    vocab: [
      ['[PAD]', 0],
      ['[CLS]', 0],
      ['[SEP]', 0],
      ['[UNK]', 0],
      ['▁ignore', -2],
      ['▁ig', -3],
      ['nore', -3],
      ['▁the', -1.5],
      ['▁rules', -2.5],
      ['▁rule', -2],
      ['s', -1],
      ['▁', -1],
      ['<0xC3>', -8],
      ['<0xA9>', -8],
    ],
  },
}

t.test('Unigram: the most probable segmentation of each word, byte fallback for an unknown character', async (t) => {
  const tokenizer = parseTokenizer(JSON.stringify(UNIGRAM))
  const text = 'ignore  the rules é'
  const tokens = tokenizer.tokenize(text)
  t.same(
    tokens.map((token) => token.id),
    [4, 7, 8, 11, 12, 13],
    '▁ignore (-2) beats ▁ig nore (-6), ▁rules (-2.5) beats ▁rule s (-3)',
  )
  t.same(
    tokens.map((token) => text.slice(token.start, token.end)),
    ['ignore', 'the', 'rules', 'é', 'é', 'é'],
  )
  t.same([tokenizer.before, tokenizer.after, tokenizer.maxLength], [[1], [2], 256])
})

t.test('what cannot be read is said in a few words', async (t) => {
  const bpe = { ...tinyTokenizer(), model: { type: 'BPE', vocab: {}, merges: [] } }
  t.throws(() => parseTokenizer(JSON.stringify(bpe)), { message: 'its model type "BPE" is not supported (WordPiece and Unigram are)' })
  t.throws(() => parseTokenizer(JSON.stringify({ ...tinyTokenizer(), pre_tokenizer: { type: 'ByteLevel' } })), {
    message: 'its pre-tokenizer "ByteLevel" is not supported',
  })
  t.throws(() => parseTokenizer('{}'), { message: 'it has no "model" section' })
  t.throws(() => parseTokenizer('not a tokenizer'), { message: 'it is not JSON' })
})
