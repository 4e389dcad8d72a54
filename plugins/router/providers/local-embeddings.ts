// The local provider's embeddings: a unit vector per input, of the model's length (or the one the
// request asks), drawn from a generator seeded by the input, so the same text always gets the same
// vector. Components are 32-bit floats, as a provider's are, so they survive base64 exactly.
import type { ProviderResult } from '../../../proxy/pipeline/completion.ts'
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { seededRandom } from '../../../proxy/kit/seeded-random.ts'
import type { EmbeddingRequest } from './adapter.ts'

/** FNV-1a over the input (a text, or its token ids) and the model's name. */
function seedOf(model: string, input: string | readonly number[]): number {
  let hash = 0x811c9dc5
  for (const text of [model, typeof input === 'string' ? input : input.join(',')]) {
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
    hash = Math.imul(hash ^ 0xff, 0x01000193)
  }
  return hash >>> 0
}

function unitVector(seed: number, length: number): number[] {
  const random = seededRandom(seed)
  const vector = new Array<number>(length)
  let squares = 0
  for (let i = 0; i < length; i++) {
    const component = random() * 2 - 1
    vector[i] = component
    squares += component * component
  }
  const norm = Math.sqrt(squares) || 1
  for (let i = 0; i < length; i++) vector[i] = Math.fround(vector[i]! / norm)
  return vector
}

export function localEmbeddings(request: EmbeddingRequest, catalog: ModelCatalog): ProviderResult {
  const length = request.dimensions ?? catalog.info(request.model).dimensions ?? 0
  return {
    text: '',
    embeddings: request.inputs.map((input) => unitVector(seedOf(request.model, input), length)),
    usage: { promptTokens: request.promptTokens, completionTokens: 0 },
  }
}
