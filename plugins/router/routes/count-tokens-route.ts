// POST /v1/messages/count_tokens (the Anthropic dialect): the prompt's size as the router counts
// it for routing and budgets, for the model the body names, without calling any model.
import { countTokensAnswerSchema } from '../../../proxy/pipeline/dialects/anthropic/answers.ts'
import { countTokensRequestSchema, toAiRequest, type CountTokensRequest } from '../../../proxy/pipeline/dialects/anthropic/request.ts'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { promptTokensOf } from '../logic/context-window.ts'
import { countContentTokens } from '../count-content-tokens.ts'
import { promptTexts, sizePrompt } from '../logic/prompt-size.ts'
import type { RouteTable } from '../logic/route-table.ts'

export function countTokensRoute(routes: RouteTable, pool: WorkerPool, countTimeoutMs: number): RouteSpec {
  return {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    name: 'anthropic_count_tokens',
    kind: 'keyed',
    keyTypes: ['sk'],
    body: countTokensRequestSchema,
    docs: { response: countTokensAnswerSchema },
    async handle(ctx) {
      const ai = toAiRequest(ctx.body as CountTokensRequest, ctx.headers)
      const plan = routes.planFor(ai, ctx.state.auth?.testMode === true)
      const size = sizePrompt(ai, plan, await countContentTokens(promptTexts(ai), pool, ctx.signal, countTimeoutMs))
      if (size instanceof InvalidRequestError) return Reply.error(size)
      return Reply.json({ input_tokens: promptTokensOf(size.messageTokens) + size.fixedTokens })
    },
  }
}
