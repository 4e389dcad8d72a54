// The normalizers of a Hugging Face tokenizer.json that a text classifier's tokenizer uses, applied
// to one pre-tokenized word at a time (so each token keeps the offsets of the word it came from).
// SentencePiece's "Precompiled" character map is read as NFKC, which is what it encodes for the
// common characters.
export type Normalize = (word: string) => string

export interface NormalizerJson {
  readonly type: string
  readonly [key: string]: unknown
}

export function normalizerOf(json: NormalizerJson | null | undefined): Normalize {
  if (json === null || json === undefined) return (word) => word
  switch (json.type) {
    case 'Sequence': {
      const steps = (json.normalizers as NormalizerJson[]).map(normalizerOf)
      return (word) => steps.reduce((text, step) => step(text), word)
    }
    case 'BertNormalizer': {
      const lowercase = json.lowercase !== false
      // Bert strips accents when it lowercases, unless told otherwise.
      const strip = json.strip_accents === true || (json.strip_accents !== false && lowercase)
      return (word) => {
        const lowered = lowercase ? word.toLowerCase() : word
        return strip ? stripAccents(lowered) : lowered
      }
    }
    case 'Lowercase':
      return (word) => word.toLowerCase()
    case 'StripAccents':
      return stripAccents
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = json.type
      return (word) => word.normalize(form)
    }
    case 'Precompiled':
      return (word) => word.normalize('NFKC')
    case 'Strip':
      return (word) => word.trim()
    case 'Replace': {
      const pattern = json.pattern as { String?: string; Regex?: string }
      const content = String(json.content)
      if (pattern.String !== undefined) {
        const from = pattern.String
        return (word) => word.split(from).join(content)
      }
      const regex = new RegExp(pattern.Regex ?? '', 'gu')
      return (word) => word.replace(regex, content)
    }
    default:
      throw new Error(`its normalizer "${json.type}" is not supported`)
  }
}

function stripAccents(word: string): string {
  return word.normalize('NFD').replace(/\p{Mn}/gu, '')
}
