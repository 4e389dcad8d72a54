// The router decides, it does not call: it picks the model and provider, fits the prompt into the
// context window, and leaves an UpstreamCall in ctx.state.router for the core to run.
import { aiRequestOf, type RequestContext } from '../../proxy/context.ts'
import { InvalidRequestError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { createUpstream, type Upstream } from '../../proxy/upstream.ts'
import { fitContextWindow } from './context-window.ts'
import { countContentTokens } from './count-content-tokens.ts'
import { createAnthropicAdapter } from './providers/anthropic.ts'
import { createChatCompletionsAdapter } from './providers/chat-completions.ts'
import { createLocalAdapter } from './providers/local.ts'
import { buildRouteTable, type Adapters, type RouteTable } from './route-table.ts'
import { MODEL_HEADER, RoutedCall, modelHeaderOf } from './routed-call.ts'
import { routerSchema, type RouterConfig } from './schema.ts'
import { reportSimulatedProviders, simulatedProviders } from './simulated-providers.ts'

const PROMPT_TOKENS_HEADER = 'x-gateway-prompt-tokens'
const TRIMMED_HEADER = 'x-gateway-context-trimmed'

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

function decide(ctx: RequestContext, routes: RouteTable, config: RouterConfig, contentTokens: readonly number[]): Reply | undefined {
  const ai = aiRequestOf(ctx)
  const plan = routes.planFor(ai, ctx.state.auth?.testMode === true)
  const { primary } = plan
  const fit = fitContextWindow(ai.messages, contentTokens, ai.maxTokens, plan.contextWindow)
  if (!fit.fits) {
    return Reply.error(new InvalidRequestError(
      'Context too long',
      `The messages need ${fit.promptTokens} tokens and maxTokens asks for ${ai.maxTokens} more, but ${primary.model} ` +
        `holds ${plan.contextWindow} tokens. Even without the older messages, the system messages and the last message ` +
        `need ${fit.minimumPromptTokens}. Shorten them or lower maxTokens.`,
    ))
  }
  const shape = {
    messages: fit.messages,
    temperature: ai.temperature,
    maxTokens: ai.maxTokens,
    mode: ai.mode,
    promptTokens: fit.promptTokens,
  }
  ctx.state.router = {
    provider: primary.provider,
    model: primary.model,
    messages: fit.messages,
    trimmedMessages: fit.dropped,
    promptTokens: fit.promptTokens,
    call: new RoutedCall(plan.candidates, shape, config.retry, ctx),
  }
  ctx.responseHeaders[MODEL_HEADER] = modelHeaderOf(primary)
  ctx.responseHeaders[PROMPT_TOKENS_HEADER] = String(fit.promptTokens)
  if (fit.dropped > 0) ctx.responseHeaders[TRIMMED_HEADER] = String(fit.dropped)
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
        const counts = countContentTokens(aiRequestOf(ctx).messages, deps.pool, ctx.signal)
        return Array.isArray(counts)
          ? decide(ctx, routes, config, counts)
          : counts.then((resolved) => decide(ctx, routes, config, resolved))
      },
      close: () => upstream.close(),
    }
  },
} satisfies GatewayPlugin<typeof routerSchema>
