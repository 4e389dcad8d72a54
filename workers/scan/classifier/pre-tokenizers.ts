// The pre-tokenizers of a Hugging Face tokenizer.json that BERT-, DeBERTa- and SentencePiece-style
// classifiers use: they cut the text into words, each with its offsets into the text, which the
// model then cuts into tokens.
export interface Word {
  readonly text: string
  /** UTF-16 offsets into the text given to the tokenizer. */
  readonly start: number
  readonly end: number
}

export interface PreTokenizerJson {
  readonly type: string
  readonly [key: string]: unknown
}

export type PreTokenize = (word: Word) => Word[]

// BERT splits CJK ideographs into one word each, as it does punctuation.
const BERT_WORDS = /[\p{P}\p{S}]|\p{Script=Han}|[^\s\p{P}\p{S}\p{Script=Han}]+/gu
const WHITESPACE_WORDS = /\w+|[^\w\s]+/gu
const NON_SPACE = /\S+/gu
const PUNCTUATION_WORDS = /[\p{P}\p{S}]|[^\p{P}\p{S}]+/gu

export function preTokenizerOf(json: PreTokenizerJson | null | undefined): PreTokenize {
  if (json === null || json === undefined) return (word) => [word]
  switch (json.type) {
    case 'Sequence': {
      const steps = (json.pretokenizers as PreTokenizerJson[]).map(preTokenizerOf)
      return (word) => steps.reduce<Word[]>((words, step) => words.flatMap(step), [word])
    }
    case 'BertPreTokenizer':
      return matching(BERT_WORDS)
    case 'Whitespace':
      return matching(WHITESPACE_WORDS)
    case 'WhitespaceSplit':
      return matching(NON_SPACE)
    case 'Punctuation':
      return matching(PUNCTUATION_WORDS)
    case 'Metaspace':
      return metaspace(json)
    default:
      throw new Error(`its pre-tokenizer "${json.type}" is not supported`)
  }
}

function matching(pattern: RegExp): PreTokenize {
  return (word) => [...word.text.matchAll(pattern)].map((m) => ({ text: m[0], start: word.start + m.index, end: word.start + m.index + m[0].length }))
}

/** SentencePiece's words: spaces become the replacement character, which also starts every word. */
function metaspace(json: PreTokenizerJson): PreTokenize {
  const replacement = typeof json.replacement === 'string' ? json.replacement : '\u2581'
  const prepend = json.prepend_scheme !== 'never' && json.add_prefix_space !== false
  const split = json.split !== false
  return (word) => {
    if (!split) return [{ ...word, text: (prepend ? replacement : '') + word.text.replace(/ /g, replacement) }]
    return matching(NON_SPACE)(word).map((w) => ({ ...w, text: (prepend || w.start > word.start ? replacement : '') + w.text }))
  }
}
