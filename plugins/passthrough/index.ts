// The provider pass-through: /api/providers/{openai|anthropic|mistral}/* forwards any other
// endpoint of the provider (embeddings, files, batches, moderation…) as it is, for a gateway key.
// The key is checked and rate-limited like any keyed route; the client's credentials are replaced
// by the gateway's; before anything is forwarded, the request holds the most it can cost (or its
// route's ceiling) of the project's budget, and whatever usage the answer reports is charged
// after, never above the hold. A request whose cost cannot be known is recorded as such, never as free.
import { InvalidRequestError, PermissionError, ProviderNotConfiguredError } from '../../proxy/pipeline/errors.ts'
import { BudgetExceededError } from '../metering/state.ts'
import type { ProviderName } from '../../proxy/pipeline/models.ts'
import type { GatewayPlugin, RouteSpec } from '../../proxy/pipeline/plugin.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { tagsOf } from '../../proxy/pipeline/request-tags.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import { apiPathOf } from './logic/api-path.ts'
import { createForwarder } from './forward.ts'
import { outgoingHeaders } from './logic/forward-headers.ts'
import { ceilingMicros, costBoundMicros, type Ceilings } from './logic/hold-bound.ts'
import { costOf, priceOf } from './logic/price.ts'
import { requestBody } from './request-body.ts'
import { passthroughSchema } from './schema.ts'
import { usageScanner } from './logic/usage-scan.ts'

const PROVIDERS: readonly ProviderName[] = ['openai', 'anthropic', 'mistral']
const METHODS = ['GET', 'POST', 'DELETE'] as const

export default {
  name: 'passthrough',
  order: 470,
  gates: [],
  reads: ['auth'],
  requires: ['auth', 'router', 'metering'],
  schema: passthroughSchema,
  setup(config, { services, track, catalog }) {
    const providers = services.providers!
    const usageMeter = services.usageMeter!
    const forwarder = createForwarder(config)
    const ceilings: Ceilings = { dollars: config.unboundedHoldDollars, byPath: config.unboundedHoldByPath }
    const priceOfModel = (model: string) => priceOf(model, catalog, config.prices)

    async function handle(ctx: RequestContext, provider: ProviderName): Promise<Reply> {
      const auth = ctx.state.auth!
      if (auth.testMode) {
        return Reply.error(
          new PermissionError('Development keys are answered by the local simulator only, which has no pass-through; use a stg_ or prod_ key.'),
        )
      }
      const apiPath = apiPathOf(ctx.params['*']!)
      if (apiPath instanceof InvalidRequestError) return Reply.error(apiPath)
      const target = providers.target(provider, apiPath)
      if (target === undefined) {
        return Reply.error(
          new ProviderNotConfiguredError(
            `The gateway has no API key for ${provider}, so it cannot forward to it; the operator sets ${provider.toUpperCase()}_API_KEY.`,
          ),
        )
      }
      // For spend by tag, as on the AI routes; a refused header is a 400 before anything is held or sent.
      const tags = tagsOf(ctx.headers)
      return Reply.exchange(async (exchange) => {
        const url = new URL(`${target.origin}${target.path}`)
        const raw = exchange.req.url ?? ''
        const mark = raw.indexOf('?')
        if (mark !== -1) url.search = raw.slice(mark)
        const headers = outgoingHeaders(ctx.headers, target.credential, target.defaults)
        const body = await requestBody(ctx.method, ctx.headers['content-type'], exchange.body)
        const bound = body.json === undefined ? undefined : costBoundMicros(body.json.value, body.json.bytes, priceOfModel)
        // A refusal (a 402, or the store away) ends the request through the server, in the spec's shape.
        // Reading or removing a stored object (a GET, a DELETE) generates no tokens: it holds nothing.
        const worstCase = ctx.method === 'POST' ? (bound ?? ceilingMicros(ceilings, provider, apiPath)) : 0
        const hold = await usageMeter.hold(ctx.id, auth.project, worstCase, auth)
        if (hold instanceof BudgetExceededError) throw hold
        const { end, seen } = await forwarder.forward(
          { ...exchange, body: body.stream },
          { url, headers },
          (type) => usageScanner(type, config.scanLimitBytes),
          ctx.signal,
        )
        const settled = usageMeter.settle(
          hold,
          {
            keyId: auth.keyId,
            provider,
            model: seen.model ?? 'unknown',
            promptTokens: seen.promptTokens ?? 0,
            completionTokens: seen.completionTokens ?? 0,
            cost: costOf(seen, catalog, config.prices),
            outcome: end.reason,
            tags,
          },
          ctx.log,
        )
        track(settled.catch((err: unknown) => ctx.log.error({ err }, 'pass-through usage not recorded')))
        return end
      })
    }

    const routes: RouteSpec[] = PROVIDERS.flatMap((provider) =>
      METHODS.map(
        (method): RouteSpec => ({
          method,
          path: `/api/providers/${provider}/*`,
          name: `passthrough_${provider}`,
          kind: 'keyed',
          keyTypes: ['sk'],
          rawBody: true,
          documented: false,
          handle: (ctx) => handle(ctx, provider),
        }),
      ),
    )
    return {
      routes,
      async close() {
        forwarder.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof passthroughSchema>
