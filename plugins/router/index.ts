// The router decides, it does not call: it picks the model and provider, fits the prompt into the
// context window, and leaves an UpstreamCall in ctx.state.router for the core to run. It also
// answers the Anthropic dialect's count_tokens, since it is the one that counts prompts.
import { aiRequestOf, type RequestContext } from '../../proxy/context.ts'
import { InvalidRequestError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { createUpstream, type Upstream } from '../../proxy/upstream.ts'
import { fitContextWindow } from './context-window.ts'
import { countContentTokens } from './count-content-tokens.ts'
import { countTokensRoute } from './count-tokens-route.ts'
import { promptTexts, sizePrompt } from './prompt-size.ts'
import { createAnthropicAdapter } from './providers/anthropic.ts'
import { createChatCompletionsAdapter } from './providers/chat-completions.ts'
import { createLocalAdapter } from './providers/local.ts'
import { buildRouteTable, type Adapters, type RouteTable } from './route-table.ts'
import { MODEL_HEADER, RoutedCall, modelHeaderOf } from './routed-call.ts'
import { routerSchema, type RouterConfig } from './schema.ts'

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

function decide(ctx: RequestContext, routes: RouteTable, config: RouterConfig, counts: number[]): Reply | undefined {
  const ai = aiRequestOf(ctx)
  const plan = routes.planFor(ai, ctx.state.auth?.testMode === true)
  const { primary } = plan
  const size = sizePrompt(ai, plan, counts)
  if (size instanceof InvalidRequestError) return Reply.error(size)
  const fit = fitContextWindow(ai.messages, size.messageTokens, ai.maxTokens, plan.contextWindow, size.fixedTokens)
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
    tools: ai.tools,
    toolChoice: ai.toolChoice,
    topP: ai.topP,
    stop: ai.stop,
    seed: ai.seed,
    jsonSchema: ai.jsonSchema,
    user: ai.user,
  }
  ctx.state.router = {
    provider: primary.provider,
    model: primary.model,
    messages: fit.messages,
    trimmedMessages: fit.dropped,
    promptTokens: fit.promptTokens,
    call: new RoutedCall(size.candidates, shape, config.retry, ctx),
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
    const adapters = buildAdapters(config, upstream)
    for (const provider of ['openai', 'anthropic', 'mistral'] as const) {
      const adapter = adapters[provider]
      deps.log.info({ provider, upstream: adapter?.target ?? 'local (no API key)' }, 'provider upstream')
    }
    const routes = buildRouteTable(adapters, config.fallback)
    return {
      routes: [countTokensRoute(routes, deps.pool)],
      onRequest(ctx) {
        const counts = countContentTokens(promptTexts(aiRequestOf(ctx)), deps.pool, ctx.signal)
        return Array.isArray(counts)
          ? decide(ctx, routes, config, counts)
          : counts.then((resolved) => decide(ctx, routes, config, resolved))
      },
      close: () => upstream.close(),
    }
  },
} satisfies GatewayPlugin<typeof routerSchema>
