// The router's decision for an embeddings request: the named model must be an embedding model,
// each input must fit its window (inputs are never trimmed: each gets its own vector), and the
// call is the chat call's RoutedCall (retries, fallback reporting) with each candidate asked for
// vectors instead of an answer. Nothing is generated: a budget hold reserves the inputs alone.
import type { AiRequest, EmbeddingOptions } from '../../../proxy/pipeline/ai-request.ts'
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import { InternalError, InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { MODEL_HEADER, PROMPT_TOKENS_HEADER, modelHeaderOf } from '../../../proxy/http/gateway-headers.ts'
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Candidate } from '../call-with-retry.ts'
import { countContentTokens } from '../count-content-tokens.ts'
import type { ProviderAdapter } from '../providers/adapter.ts'
import type { RoutePlan } from '../logic/route-table.ts'
import { RoutedCall } from '../routed-call.ts'
import type { RouterConfig } from '../schema.ts'
import type { RouteDecision } from '../state.ts'

function embeddingModels(catalog: ModelCatalog): string {
  return catalog.names.filter((name) => catalog.info(name).dimensions !== null).join(', ')
}

/** The 400 for a request this plan cannot serve as embeddings; undefined when it can. */
function refusal(plan: RoutePlan, options: EmbeddingOptions, catalog: ModelCatalog): InvalidRequestError | undefined {
  const {
    model,
    info: { dimensions },
  } = plan.primary
  if (dimensions === null) {
    return new InvalidRequestError('Not an embedding model', `${model} does not make embeddings. Choose one of: ${embeddingModels(catalog)}.`)
  }
  if (options.dimensions !== undefined && options.dimensions > dimensions) {
    return new InvalidRequestError(
      'Too many dimensions',
      `${model} makes vectors of at most ${dimensions} dimensions; dimensions asks for ${options.dimensions}.`,
    )
  }
  if (plan.candidates.some((candidate) => candidate.adapter.embed === undefined)) {
    return new InvalidRequestError('Embeddings not served', `The provider of ${model} has no embeddings API.`)
  }
  return undefined
}

/** A candidate whose calls make vectors of these inputs: what RoutedCall's attempt loop runs. */
function embeddingCandidate(candidate: Candidate, ai: AiRequest, options: EmbeddingOptions): Candidate {
  const embed = candidate.adapter.embed!
  const adapter: ProviderAdapter = {
    target: candidate.adapter.target,
    complete: (request, signal) =>
      embed(
        {
          model: request.model,
          inputs: options.inputs,
          dimensions: options.dimensions,
          promptTokens: request.promptTokens,
          user: ai.user,
          ...(request.traceHeaders !== undefined && { traceHeaders: request.traceHeaders }),
        },
        signal,
      ),
    stream() {
      throw new InternalError('An embeddings request has no stream.')
    },
  }
  return { ...candidate, adapter }
}

/** Each input's tokens: a text's as counted, a token array's length. */
function inputTokens(options: EmbeddingOptions, textCounts: readonly number[]): number[] {
  let next = 0
  return options.inputs.map((input) => (typeof input === 'string' ? textCounts[next++]! : input.length))
}

function decide(
  ctx: RequestContext,
  plan: RoutePlan,
  ai: AiRequest,
  options: EmbeddingOptions,
  counts: readonly number[],
  config: RouterConfig,
): Reply | undefined {
  const tokens = inputTokens(options, counts)
  const longest = tokens.findIndex((count) => count > plan.contextWindow)
  if (longest >= 0) {
    return Reply.error(
      new InvalidRequestError(
        'Input too long',
        `Input ${longest} holds ${tokens[longest]} tokens, but ${plan.primary.model} reads at most ${plan.contextWindow} tokens per input. Split it.`,
      ),
    )
  }
  const promptTokens = tokens.reduce((sum, count) => sum + count, 0)
  const candidates = plan.candidates.map((candidate) => embeddingCandidate(candidate, ai, options))
  const shape = { messages: ai.messages, mode: 'text' as const, user: ai.user }
  const decision: RouteDecision = {
    provider: plan.primary.provider,
    model: plan.primary.model,
    models: plan.candidates.map((candidate) => candidate.model),
    messages: ai.messages,
    trimmedMessages: 0,
    promptTokens,
    promptTokensBound: promptTokens,
    maxTokens: 0,
    call: new RoutedCall(candidates, shape, promptTokens, config.retry, ctx),
  }
  ctx.state.router = decision
  ctx.modelCall = decision
  ctx.responseHeaders[MODEL_HEADER] = modelHeaderOf(plan.primary)
  ctx.responseHeaders[PROMPT_TOKENS_HEADER] = String(promptTokens)
  return undefined
}

export function routeEmbedding(
  ctx: RequestContext,
  plan: RoutePlan,
  ai: AiRequest,
  options: EmbeddingOptions,
  config: RouterConfig,
  deps: PluginDeps,
): Reply | undefined | Promise<Reply | undefined> {
  const refused = refusal(plan, options, deps.catalog)
  if (refused !== undefined) return Reply.error(refused)
  const texts = options.inputs.filter((input): input is string => typeof input === 'string')
  const counts = countContentTokens(texts, deps.pool, ctx.signal, config.countTimeoutMs)
  return counts instanceof Promise ? counts.then((counted) => decide(ctx, plan, ai, options, counted, config)) : decide(ctx, plan, ai, options, counts, config)
}
