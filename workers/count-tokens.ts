// Token counts with the o200k encoding (GPT-4o family). Other providers' tokenizers differ by a
// few percent; this count is what the gateway uses when a provider reports none.
import { countTokens as count } from 'gpt-tokenizer/encoding/o200k_base'

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : count(text)
}
