// Which requests the exact cache may answer, by how their answer is sampled. On the spec's own
// endpoints every identical request is (chat rule 1). On a client dialect (OpenAI's, Anthropic's)
// only a request whose answer does not depend on sampling, at temperature 0 or with a seed, unless
// its project opts in with cacheSampled: a client that asks for temperature 1.2 twice expects two
// answers, and the providers' APIs give them. Embeddings are never sampled: the same inputs get
// the same vectors.
import type { AiRequest } from '../../../proxy/pipeline/ai-request.ts'

export function isCacheable(isDialect: boolean, ai: AiRequest, cacheSampled: boolean): boolean {
  return !isDialect || cacheSampled || ai.embedding !== undefined || ai.temperature === 0 || ai.seed !== undefined
}
