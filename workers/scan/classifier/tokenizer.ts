// A Hugging Face tokenizer.json read for classification: the text's tokens with their offsets,
// and the special tokens the model expects around a sequence ([CLS] … [SEP], <s> … </s>).
import { normalizerOf, type NormalizerJson } from './normalizers.ts'
import { preTokenizerOf, type PreTokenizerJson } from './pre-tokenizers.ts'
import { tokenModelOf, type TokenModelJson } from './token-models.ts'

export interface Token {
  readonly id: number
  /** UTF-16 offsets of the word the token came from. */
  readonly start: number
  readonly end: number
}

export interface Tokenizer {
  tokenize(text: string): Token[]
  /** Ids put before and after every sequence. */
  readonly before: readonly number[]
  readonly after: readonly number[]
  /** The sequence length the tokenizer truncates to, if it says. */
  readonly maxLength: number | undefined
}

interface TokenizerJson {
  readonly normalizer?: NormalizerJson | null
  readonly pre_tokenizer?: PreTokenizerJson | null
  readonly post_processor?: PostProcessorJson | null
  readonly model?: TokenModelJson
  readonly truncation?: { readonly max_length?: number } | null
}

interface PostProcessorJson {
  readonly type: string
  readonly [key: string]: unknown
}

/** Throws an Error whose message says, in a few words, what in the file cannot be used. */
export function parseTokenizer(source: string): Tokenizer {
  let json: TokenizerJson
  try {
    json = JSON.parse(source) as TokenizerJson
  } catch {
    throw new Error('it is not JSON')
  }
  if (typeof json !== 'object' || json === null || typeof json.model !== 'object') throw new Error('it has no "model" section')
  const normalize = normalizerOf(json.normalizer)
  const preTokenize = preTokenizerOf(json.pre_tokenizer)
  const model = tokenModelOf(json.model)
  const { before, after } = specialsOf(json.post_processor)
  return {
    before,
    after,
    maxLength: json.truncation?.max_length,
    tokenize(text) {
      const tokens: Token[] = []
      for (const word of preTokenize({ text, start: 0, end: text.length })) {
        const normalized = normalize(word.text)
        if (normalized.length === 0) continue
        for (const id of model(normalized)) tokens.push({ id, start: word.start, end: word.end })
      }
      return tokens
    },
  }
}

function specialsOf(json: PostProcessorJson | null | undefined): { before: number[]; after: number[] } {
  if (json === null || json === undefined) return { before: [], after: [] }
  switch (json.type) {
    case 'BertProcessing':
    case 'RobertaProcessing': {
      const cls = json.cls as [string, number]
      const sep = json.sep as [string, number]
      return { before: [cls[1]], after: [sep[1]] }
    }
    case 'TemplateProcessing': {
      const specials = json.special_tokens as Record<string, { ids: number[] }>
      const before: number[] = []
      const after: number[] = []
      let seen = false
      for (const part of json.single as Array<{ SpecialToken?: { id: string }; Sequence?: unknown }>) {
        if (part.Sequence !== undefined) {
          seen = true
          continue
        }
        const ids = specials[part.SpecialToken?.id ?? '']?.ids
        if (ids === undefined) throw new Error(`its template names a special token ${part.SpecialToken?.id} it does not define`)
        if (seen) after.push(...ids)
        else before.push(...ids)
      }
      return { before, after }
    }
    case 'Sequence': {
      const steps = (json.processors as PostProcessorJson[]).map(specialsOf)
      return { before: steps.flatMap((s) => s.before), after: steps.flatMap((s) => s.after) }
    }
    case 'ByteLevel':
      return { before: [], after: [] }
    default:
      throw new Error(`its post-processor "${json.type}" is not supported`)
  }
}
