// The router decides, it does not call: it picks the model and provider, fits the prompt into the
// context window, and leaves an UpstreamCall in ctx.state.router for the core to run.
import { aiRequestOf, type RequestContext } from '../../proxy/context.ts'
import { InvalidRequestError } from '../../proxy/errors.ts'
import type { GatewayPlugin, PluginDeps } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { createUpstream, type Upstream } from '../../proxy/upstream.ts'
import type { AiRequest, Message } from '../../proxy/ai-request.ts'
import { fitContextWindow, promptTokensOf } from './context-window.ts'
import { countContentTokens, countInline } from './count-content-tokens.ts'
import { byteBound, contentBytes, promptTokensBound } from './prompt-bound.ts'
import { countTokens } from '../../workers/count-tokens.ts'
import { JSON_MODE_INSTRUCTION } from './providers/adapter.ts'
import { createAnthropicAdapter } from './providers/anthropic.ts'
import { createChatCompletionsAdapter } from './providers/chat-completions.ts'
import { createLocalAdapter } from './providers/local.ts'
import { buildRouteTable, type Adapters, type RoutePlan } from './route-table.ts'
import { MODEL_HEADER, PROMPT_TOKENS_HEADER, RoutedCall, modelHeaderOf } from './routed-call.ts'
import { routerSchema, type RouterConfig } from './schema.ts'
import { reportSimulatedProviders, simulatedProviders } from './simulated-providers.ts'

const TRIMMED_HEADER = 'x-gateway-context-trimmed'
const jsonInstructionTokens = countTokens(JSON_MODE_INSTRUCTION)

function buildAdapters(config: RouterConfig, upstream: Upstream): Adapters {
  const { openai, anthropic, mistral } = config.providers
  return {
    local: createLocalAdapter({ chunkDelayMs: config.local.chunkDelayMs }),
    ...(openai.apiKey !== undefined && {
      openai: createChatCompletionsAdapter(upstream, {
        label: 'openai', baseUrl: openai.baseUrl, apiKey: openai.apiKey, asksForStreamUsage: true, maxTemperature: 2,
      }),
    }),
    ...(mistral.apiKey !== undefined && {
      mistral: createChatCompletionsAdapter(upstream, {
        label: 'mistral', baseUrl: mistral.baseUrl, apiKey: mistral.apiKey, asksForStreamUsage: false, maxTemperature: 1,
      }),
    }),
    ...(anthropic.apiKey !== undefined && {
      anthropic: createAnthropicAdapter(upstream, { baseUrl: anthropic.baseUrl, apiKey: anthropic.apiKey }),
    }),
  }
}

/** The prompt as it will be sent: as given when even its byte bound fits the window, else trimmed on counts. */
type Fitted =
  | { readonly messages: readonly Message[]; readonly dropped: number; readonly counts: readonly number[] | undefined }
  | { readonly error: Reply }

function fit(ai: AiRequest, plan: RoutePlan, counts: readonly number[]): Fitted {
  const fitted = fitContextWindow(ai.messages, counts, ai.maxTokens, plan.contextWindow)
  if (fitted.fits) {
    const kept = new Set(fitted.messages)
    return { messages: fitted.messages, dropped: fitted.dropped, counts: counts.filter((_, i) => kept.has(ai.messages[i]!)) }
  }
  return {
    error: Reply.error(new InvalidRequestError(
      'Context too long',
      `The messages need ${fitted.promptTokens} tokens and maxTokens asks for ${ai.maxTokens} more, but ${plan.primary.model} ` +
        `holds ${plan.contextWindow} tokens. Even without the older messages, the system messages and the last message ` +
        `need ${fitted.minimumPromptTokens}. Shorten them or lower maxTokens.`,
    )),
  }
}

function decide(ctx: RequestContext, plan: RoutePlan, fitted: Exclude<Fitted, { error: Reply }>, config: RouterConfig, deps: PluginDeps): undefined {
  const ai = aiRequestOf(ctx)
  const { primary } = plan
  const models = plan.candidates.map((candidate) => candidate.model)
  const bytes = contentBytes(fitted.messages)
  const exact = fitted.counts
  const bound = promptTokensBound(models, fitted.messages, bytes, exact, jsonInstructionTokens, ai.mode)
  // Counting that needs the pool waits until the request has been admitted (budget, Governor,
  // cache): until then the byte bound stands in, so a refusal never pays for tokenizing.
  const promptTokens = exact === undefined ? undefined : promptTokensOf(exact)
  const countLater = exact === undefined
    ? async (signal: AbortSignal) => promptTokensOf(await countContentTokens(fitted.messages, deps.pool, signal))
    : undefined
  const shape = { messages: fitted.messages, temperature: ai.temperature, maxTokens: ai.maxTokens, mode: ai.mode }
  ctx.state.router = {
    provider: primary.provider,
    model: primary.model,
    models,
    messages: fitted.messages,
    trimmedMessages: fitted.dropped,
    promptTokens: promptTokens ?? bound,
    promptTokensBound: bound,
    call: new RoutedCall(plan.candidates, shape, promptTokens ?? countLater!, config.retry, ctx),
  }
  ctx.responseHeaders[MODEL_HEADER] = modelHeaderOf(primary)
  if (promptTokens !== undefined) ctx.responseHeaders[PROMPT_TOKENS_HEADER] = String(promptTokens)
  if (fitted.dropped > 0) ctx.responseHeaders[TRIMMED_HEADER] = String(fitted.dropped)
  return undefined
}

export default {
  name: 'router',
  order: 250,
  gates: ['ai'],
  schema: routerSchema,
  setup(config, deps) {
    const upstream = createUpstream({
      connections: config.connections,
      connectTimeoutMs: config.timeouts.connectMs,
      firstByteTimeoutMs: config.timeouts.firstByteMs,
      idleTimeoutMs: config.timeouts.idleMs,
    })
    const routes = buildRouteTable(buildAdapters(config, upstream), config.fallback)
    const simulated = simulatedProviders(config)
    reportSimulatedProviders(simulated, deps.log, deps.metrics)
    const readiness = { simulated }
    return {
      readiness: () => readiness,
      onRequest(ctx) {
        const ai = aiRequestOf(ctx)
        const plan = routes.planFor(ai, ctx.state.auth?.testMode === true)
        const bytes = contentBytes(ai.messages)
        const counts = countInline(ai.messages)
        // Whatever the tokenizer, a prompt within its byte bound fits: nothing to count or trim.
        if (byteBound(bytes, ai.mode) + ai.maxTokens <= plan.contextWindow) {
          return decide(ctx, plan, { messages: ai.messages, dropped: 0, counts }, config, deps)
        }
        const fitWith = (exact: readonly number[]) => {
          const fitted = fit(ai, plan, exact)
          return 'error' in fitted ? fitted.error : decide(ctx, plan, fitted, config, deps)
        }
        return counts !== undefined ? fitWith(counts) : Promise.resolve(countContentTokens(ai.messages, deps.pool, ctx.signal)).then(fitWith)
      },
      close: () => upstream.close(),
    }
  },
} satisfies GatewayPlugin<typeof routerSchema>
