// The two token models of Hugging Face tokenizer.json that text classifiers use: WordPiece (BERT,
// DistilBERT) and Unigram (SentencePiece: DeBERTa-v2/v3, mDeBERTa, Llama Prompt Guard). Each
// turns one normalized word into token ids.
export type TokenModel = (word: string) => number[]

export interface TokenModelJson {
  readonly type: string
  readonly [key: string]: unknown
}

export function tokenModelOf(json: TokenModelJson): TokenModel {
  switch (json.type) {
    case 'WordPiece':
      return wordPiece(json)
    case 'Unigram':
      return unigram(json)
    default:
      throw new Error(`its model type "${json.type}" is not supported (WordPiece and Unigram are)`)
  }
}

/** Greedy longest match from the left; a word with a part not in the vocabulary is the unknown token. */
function wordPiece(json: TokenModelJson): TokenModel {
  const vocab = new Map(Object.entries(json.vocab as Record<string, number>))
  const unknown = vocab.get(String(json.unk_token ?? '[UNK]'))
  if (unknown === undefined) throw new Error(`its unknown token ${String(json.unk_token)} is not in the vocabulary`)
  const prefix = typeof json.continuing_subword_prefix === 'string' ? json.continuing_subword_prefix : '##'
  const longest = typeof json.max_input_chars_per_word === 'number' ? json.max_input_chars_per_word : 100
  return (word) => {
    const chars = [...word]
    if (chars.length > longest) return [unknown]
    const ids: number[] = []
    let start = 0
    while (start < chars.length) {
      let end = chars.length
      let id: number | undefined
      for (; end > start; end--) {
        id = vocab.get((start > 0 ? prefix : '') + chars.slice(start, end).join(''))
        if (id !== undefined) break
      }
      if (id === undefined) return [unknown]
      ids.push(id)
      start = end
    }
    return ids
  }
}

/** SentencePiece's penalty below the lowest piece score for an unknown character. */
const UNKNOWN_PENALTY = 10

/** The most probable segmentation (Viterbi over the pieces' log probabilities). */
function unigram(json: TokenModelJson): TokenModel {
  const pieces = json.vocab as Array<[string, number]>
  const ids = new Map<string, number>()
  let lowest = 0
  let longest = 1
  pieces.forEach(([piece, score], id) => {
    ids.set(piece, id)
    lowest = Math.min(lowest, score)
    longest = Math.max(longest, [...piece].length)
  })
  if (typeof json.unk_id !== 'number') throw new Error('its Unigram model has no unk_id')
  const unknown = json.unk_id
  const byteFallback = json.byte_fallback === true
  const unknownScore = lowest - UNKNOWN_PENALTY
  return (word) => {
    const chars = [...word]
    const best = new Float64Array(chars.length + 1).fill(-Infinity)
    const from = new Int32Array(chars.length + 1)
    const token = new Int32Array(chars.length + 1)
    best[0] = 0
    for (let end = 1; end <= chars.length; end++) {
      for (let start = Math.max(0, end - longest); start < end; start++) {
        if (best[start] === -Infinity) continue
        const id = ids.get(chars.slice(start, end).join(''))
        const score = id !== undefined ? pieces[id]![1] : end - start === 1 ? unknownScore : undefined
        if (score === undefined || best[start]! + score <= best[end]!) continue
        best[end] = best[start]! + score
        from[end] = start
        token[end] = id ?? -1
      }
    }
    const out: number[] = []
    for (let end = chars.length; end > 0; end = from[end]!) {
      const id = token[end]!
      if (id >= 0) out.push(id)
      else out.push(...unknownChar(chars[end - 1]!).reverse())
    }
    return out.reverse()
  }

  function unknownChar(char: string): number[] {
    if (!byteFallback) return [unknown]
    const bytes = [...new TextEncoder().encode(char)].map((b) => ids.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`))
    return bytes.every((id) => id !== undefined) ? bytes : [unknown]
  }
}
