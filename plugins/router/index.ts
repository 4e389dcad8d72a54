// The router decides, it does not call: it picks the model and provider, fits the prompt into the
// context window, and leaves an UpstreamCall in ctx.modelCall for the core to run, the same
// decision in ctx.state.router for the plugins after it. It also answers the Anthropic dialect's
// count_tokens, since it is the one that counts prompts.
import { SPEC_TEMPERATURE, type AiRequest, type Message } from '../../proxy/pipeline/ai-request.ts'
import { aiRequestOf, type RequestContext } from '../../proxy/pipeline/context.ts'
import { InvalidRequestError } from '../../proxy/pipeline/errors.ts'
import { MODEL_HEADER, PROMPT_TOKENS_HEADER, modelHeaderOf } from '../../proxy/http/gateway-headers.ts'
import type { GatewayPlugin, PluginDeps } from '../../proxy/pipeline/plugin.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { createUpstream, type Upstream } from '../../proxy/pipeline/upstream.ts'
import { routerLogFields, type RouteDecision } from './state.ts'
import { fitContextWindow, promptTokensOf } from './logic/context-window.ts'
import { countContentTokens, countInline } from './count-content-tokens.ts'
import { missingCapability } from './logic/capabilities.ts'
import { countTokensRoute } from './routes/count-tokens-route.ts'
import { routeEmbedding } from './routes/embedding-route.ts'
import { modelRoutes } from './routes/models-route.ts'
import { byteBound, promptTokensBound, textBytes } from './logic/prompt-bound.ts'
import { promptTexts, sizePrompt, type PromptSize } from './logic/prompt-size.ts'
import { JSON_MODE_INSTRUCTION } from './providers/adapter.ts'
import { countTokens } from '../../workers/count-tokens.ts'
import type { RetryPolicy } from './call-with-retry.ts'
import { deploymentCounters } from './deployment-metrics.ts'
import { fallbackTrigger } from './logic/fallbacks.ts'
import { deploymentAdapters } from './deployments.ts'
import { createLocalAdapter } from './providers/local.ts'
import { buildRouteTable, type Adapters, type RoutePlan } from './logic/route-table.ts'
import { providerDirectory } from './provider-directory.ts'
import { RoutedCall } from './routed-call.ts'
import { answerRoom } from './logic/sampling.ts'
import { routerSchema, type RouterConfig } from './schema.ts'
import { reportSimulatedProviders, simulatedProviders } from './simulated-providers.ts'

const TRIMMED_HEADER = 'x-gateway-context-trimmed'
const jsonInstructionTokens = countTokens(JSON_MODE_INSTRUCTION)

function buildAdapters(config: RouterConfig, upstream: Upstream, deps: PluginDeps): Adapters {
  return {
    local: createLocalAdapter({ chunkDelayMs: config.local.chunkDelayMs, catalog: deps.catalog }),
    ...deploymentAdapters(config, upstream, deps.clock, deploymentCounters(deps.metrics), deps.catalog),
  }
}

/** The prompt as it will be sent, sized twice: by UTF-8 bytes (a bound) and, when counted, in tokens. */
interface SizedPrompt {
  readonly messages: readonly Message[]
  readonly dropped: number
  /** What is counted: each message's text, then the tool definitions when there are any. */
  readonly texts: readonly string[]
  readonly bytes: PromptSize
  readonly exact: PromptSize | undefined
}

/** Sizes a request (or what is kept of it) from its texts' counts; the image check already passed. */
function sized(ai: AiRequest, plan: RoutePlan, counts: readonly number[]): PromptSize {
  return sizePrompt(ai, plan, [...counts]) as PromptSize
}

/** The answer's room in the context window, as a 400 tells the client. */
function roomText(ai: AiRequest, room: number): string {
  return ai.maxTokens === undefined ? `the answer needs room for ${room} more (the request sets no maximum)` : `maxTokens asks for ${room} more`
}

/** What is left of the prompt once the oldest turns that do not fit are dropped, or the 400 that nothing fits. */
function fit(ai: AiRequest, plan: RoutePlan, counts: readonly number[], room: number): SizedPrompt | Reply {
  const size = sized(ai, plan, counts)
  const fitted = fitContextWindow(ai.messages, size.messageTokens, room, plan.contextWindow, size.fixedTokens)
  if (!fitted.fits) {
    return Reply.error(
      new InvalidRequestError(
        'Context too long',
        `The messages need ${fitted.promptTokens} tokens and ${roomText(ai, room)}, but ${plan.primary.model} ` +
          `holds ${plan.contextWindow} tokens. Even without the older messages, the system messages and the last message ` +
          `need ${fitted.minimumPromptTokens}. Shorten them or lower maxTokens.`,
      ),
    )
  }
  const kept = new Set(fitted.messages)
  const keep = <T>(values: readonly T[]) => values.filter((_, i) => i >= ai.messages.length || kept.has(ai.messages[i]!))
  const rest = { ...ai, messages: fitted.messages }
  const texts = keep(promptTexts(ai))
  return { messages: fitted.messages, dropped: fitted.dropped, texts, bytes: sized(rest, plan, textBytes(texts)), exact: sized(rest, plan, keep(counts)) }
}

function decide(
  ctx: RequestContext,
  plan: RoutePlan,
  prompt: SizedPrompt,
  answerTokens: number,
  config: RouterConfig,
  deps: PluginDeps,
  policy: RetryPolicy,
): undefined {
  const ai = aiRequestOf(ctx)
  const { primary } = plan
  const { candidates } = prompt.bytes
  const models = candidates.map((candidate) => candidate.model)
  const bound = promptTokensBound(
    candidates.map((candidate) => candidate.info),
    prompt.texts,
    prompt.bytes,
    prompt.exact,
    jsonInstructionTokens,
    ai.mode,
  )
  const sent = prompt.dropped === 0 ? ai : { ...ai, messages: prompt.messages }
  const tokensOf = (size: PromptSize) => promptTokensOf(size.messageTokens) + size.fixedTokens
  // Counting that needs the pool waits until the request has been admitted (budget, Governor,
  // cache): until then the byte bound stands in, so a refusal never pays for tokenizing.
  const promptTokens = prompt.exact === undefined ? undefined : tokensOf(prompt.exact)
  const countLater = async (signal: AbortSignal) =>
    tokensOf(sized(sent, plan, await countContentTokens(prompt.texts, deps.pool, signal, config.countTimeoutMs)))
  const shape = {
    messages: prompt.messages,
    temperature: ai.temperature,
    // The spec's endpoints keep its default; a dialect's client that sends none gets the provider's.
    defaultTemperature: ctx.route.dialect === undefined ? SPEC_TEMPERATURE : undefined,
    maxTokens: ai.maxTokens,
    mode: ai.mode,
    tools: ai.tools,
    toolChoice: ai.toolChoice,
    topP: ai.topP,
    stop: ai.stop,
    seed: ai.seed,
    jsonSchema: ai.jsonSchema,
    user: ai.user,
  }
  const decision: RouteDecision = {
    provider: primary.provider,
    model: primary.model,
    models,
    messages: prompt.messages,
    trimmedMessages: prompt.dropped,
    promptTokens: promptTokens ?? bound,
    promptTokensBound: bound,
    maxTokens: answerTokens,
    call: new RoutedCall(candidates, shape, promptTokens ?? countLater, policy, ctx),
  }
  ctx.state.router = decision
  ctx.modelCall = decision
  ctx.responseHeaders[MODEL_HEADER] = modelHeaderOf(primary)
  if (promptTokens !== undefined) ctx.responseHeaders[PROMPT_TOKENS_HEADER] = String(promptTokens)
  if (prompt.dropped > 0) ctx.responseHeaders[TRIMMED_HEADER] = String(prompt.dropped)
  return undefined
}

export default {
  name: 'router',
  order: 250,
  gates: ['ai'],
  reads: ['auth'],
  schema: routerSchema,
  env: [
    ['OPENAI_BASE_URL', ['providers', 'openai', 'baseUrl'], 'string'],
    ['OPENAI_API_KEY', ['providers', 'openai', 'apiKey'], 'string'],
    ['ANTHROPIC_BASE_URL', ['providers', 'anthropic', 'baseUrl'], 'string'],
    ['ANTHROPIC_API_KEY', ['providers', 'anthropic', 'apiKey'], 'string'],
    ['MISTRAL_BASE_URL', ['providers', 'mistral', 'baseUrl'], 'string'],
    ['MISTRAL_API_KEY', ['providers', 'mistral', 'apiKey'], 'string'],
    ['LOCAL_CHUNK_DELAY_MS', ['local', 'chunkDelayMs'], 'int'],
  ],
  setup(config, deps) {
    const upstream = createUpstream({
      connections: config.connections,
      connectTimeoutMs: config.timeouts.connectMs,
      firstByteTimeoutMs: config.timeouts.firstByteMs,
      idleTimeoutMs: config.timeouts.idleMs,
    })
    const adapters = buildAdapters(config, upstream, deps)
    for (const provider of ['openai', 'anthropic', 'mistral'] as const) {
      const adapter = adapters[provider]
      deps.log.info({ provider, upstream: adapter?.target ?? 'local (no API key)' }, 'provider upstream')
    }
    const routes = buildRouteTable(adapters, config, deps.catalog)
    const policy: RetryPolicy = { ...config.retry, fallsBackOn: fallbackTrigger(config.fallbackOn) }
    const simulated = simulatedProviders(config)
    reportSimulatedProviders(simulated, deps.log, deps.metrics)
    const readiness = { simulated }
    return {
      provides: { providers: providerDirectory(config), localModel: adapters.local },
      readiness: () => readiness,
      logFields: routerLogFields,
      routes: [countTokensRoute(routes, deps.pool, config.countTimeoutMs), ...modelRoutes(config.tiers, deps.catalog)],
      onRequest(ctx) {
        const ai = aiRequestOf(ctx)
        const plan = routes.planFor(ai, ctx.state.auth?.testMode === true)
        if (ai.embedding !== undefined) return routeEmbedding(ctx, plan, ai, ai.embedding, config, deps)
        const lacking = missingCapability(ai, plan.primary.model, plan.primary.info)
        if (lacking !== undefined) return Reply.error(lacking)
        const texts = promptTexts(ai)
        const bytes = sizePrompt(ai, plan, textBytes(texts))
        if (bytes instanceof InvalidRequestError) return Reply.error(bytes)
        const counts = countInline(texts)
        // A budget hold reserves the longest answer that may come; the window keeps room for a usual one.
        const answerTokens = ai.maxTokens ?? plan.maxOutputTokens
        const room = answerRoom(ai.maxTokens, plan.maxOutputTokens)
        // Whatever the tokenizer, a prompt within its byte bound fits: nothing to count or trim.
        if (byteBound(bytes, ai.mode) + room <= plan.contextWindow) {
          const exact = counts === undefined ? undefined : sized(ai, plan, counts)
          return decide(ctx, plan, { messages: ai.messages, dropped: 0, texts, bytes, exact }, answerTokens, config, deps, policy)
        }
        const fitWith = (exact: readonly number[]) => {
          const prompt = fit(ai, plan, exact, room)
          return 'texts' in prompt ? decide(ctx, plan, prompt, answerTokens, config, deps, policy) : prompt
        }
        return counts !== undefined ? fitWith(counts) : Promise.resolve(countContentTokens(texts, deps.pool, ctx.signal, config.countTimeoutMs)).then(fitWith)
      },
      close: () => upstream.close(),
    }
  },
} satisfies GatewayPlugin<typeof routerSchema>
