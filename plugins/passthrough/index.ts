// The provider pass-through: /api/providers/{openai|anthropic|mistral}/* forwards any other
// endpoint of the provider (embeddings, files, batches, moderation…) as it is, for a gateway key.
// The key is checked and rate-limited like any keyed route; the client's credentials are replaced
// by the gateway's; the project's budget is checked before, and whatever usage the answer reports
// is charged after. A request whose cost cannot be known is recorded as such, never as free.
import { modelCatalog } from '../../proxy/catalog.ts'
import { InvalidRequestError, PermissionError, ProviderNotConfiguredError } from '../../proxy/errors.ts'
import type { ProviderName } from '../../proxy/models.ts'
import type { GatewayPlugin, RouteSpec } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import type { RequestContext } from '../../proxy/context.ts'
import { apiPathOf } from './api-path.ts'
import { createForwarder } from './forward.ts'
import { outgoingHeaders } from './forward-headers.ts'
import { costOf } from './price.ts'
import { passthroughSchema } from './schema.ts'
import { usageScanner } from './usage-scan.ts'

const PROVIDERS: readonly ProviderName[] = ['openai', 'anthropic', 'mistral']
const METHODS = ['GET', 'POST', 'DELETE'] as const

export default {
  name: 'passthrough',
  order: 470,
  gates: [],
  requires: ['auth', 'router', 'metering'],
  schema: passthroughSchema,
  setup(config, { services, track }) {
    const providers = services.providers!
    const usageMeter = services.usageMeter!
    const forwarder = createForwarder(config)

    async function handle(ctx: RequestContext, provider: ProviderName): Promise<Reply> {
      const auth = ctx.state.auth!
      if (auth.testMode) {
        return Reply.error(new PermissionError('Development keys are answered by the local simulator only, which has no pass-through; use a stg_ or prod_ key.'))
      }
      const apiPath = apiPathOf(ctx.params['*']!)
      if (apiPath instanceof InvalidRequestError) return Reply.error(apiPath)
      const target = providers.target(provider, apiPath)
      if (target === undefined) {
        return Reply.error(new ProviderNotConfiguredError(`The gateway has no API key for ${provider}, so it cannot forward to it; the operator sets ${provider.toUpperCase()}_API_KEY.`))
      }
      const refusal = await usageMeter.admit(auth.project)
      if (refusal !== undefined) return Reply.error(refusal)
      return Reply.exchange(async (exchange) => {
        const url = new URL(`${target.origin}${target.path}`)
        const raw = exchange.req.url ?? ''
        const mark = raw.indexOf('?')
        if (mark !== -1) url.search = raw.slice(mark)
        const headers = outgoingHeaders(ctx.headers, target.credential, target.defaults)
        const { end, seen } = await forwarder.forward(exchange, { url, headers }, (type) => usageScanner(type, config.scanLimitBytes), ctx.signal)
        const recorded = usageMeter.record({
          requestId: ctx.id, project: auth.project, keyId: auth.keyId, provider, model: seen.model ?? 'unknown',
          promptTokens: seen.promptTokens ?? 0, completionTokens: seen.completionTokens ?? 0,
          cost: costOf(seen, modelCatalog(), config.prices), outcome: end.reason,
        })
        track(recorded.catch((err: unknown) => ctx.log.error({ err }, 'pass-through usage not recorded')))
        return end
      })
    }

    const routes: RouteSpec[] = PROVIDERS.flatMap((provider) => METHODS.map((method): RouteSpec => ({
      method, path: `/api/providers/${provider}/*`, name: `passthrough_${provider}`, kind: 'keyed', keyTypes: ['sk'],
      rawBody: true, documented: false, handle: (ctx) => handle(ctx, provider),
    })))
    return {
      routes,
      async close() {
        forwarder.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof passthroughSchema>
