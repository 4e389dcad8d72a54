// Webhooks: registration endpoints, and durable, signed, retried delivery of the events other
// plugins put in the outbox. The plugin has no request hooks; its work is its routes and the
// delivery worker it starts (see delivery-worker.ts for the loop, store/index.ts for where the
// records live: LMDB, or PostgreSQL shared by every gateway on DATABASE_URL).
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { deliveryRoutes } from './routes/delivery-routes.ts'
import { startDeliveryWorker } from './delivery-worker.ts'
import { createDeliveryDispatcher } from './guarded-dispatcher.ts'
import { createIds } from './ids.ts'
import { createWebhookMetrics } from './metrics.ts'
import { openWebhookStore } from './store/index.ts'
import { systemResolve, type ResolveHost } from './resolve-host.ts'
import { createAttemptRunner } from './run-attempt.ts'
import { webhooksSchema } from './schema.ts'
import { testRoute } from './routes/test-route.ts'
import { webhookRoutes } from './routes/webhook-routes.ts'

export interface WebhooksPluginOptions {
  /** Name resolution for targets; the system resolver unless a test plays DNS. */
  readonly resolve?: ResolveHost
}

export function createWebhooksPlugin(options: WebhooksPluginOptions = {}): GatewayPlugin<typeof webhooksSchema> {
  const resolve = options.resolve ?? systemResolve
  return {
    name: 'webhooks',
    order: 900,
    gates: [],
    schema: webhooksSchema,
    env: [
      ['WEBHOOKS_ALLOW_PRIVATE_TARGETS', ['allowPrivateTargets'], 'bool'],
      ['WEBHOOKS_ALLOW_HTTP', ['allowHttp'], 'bool'],
    ],
    async setup(config, deps) {
      const { clock, log, metrics: registry } = deps
      const newId = createIds(clock)
      const { store, box } = await openWebhookStore(deps, config.encryptionKey, newId)
      const metrics = createWebhookMetrics(registry, () => store.pendingCount())
      const dispatcher = createDeliveryDispatcher({ allowPrivateTargets: config.allowPrivateTargets, resolve, connectTimeoutMs: config.timeoutMs })
      const stopping = new AbortController()
      const runAttempt = createAttemptRunner({
        store,
        box,
        dispatcher,
        clock,
        log,
        metrics,
        timeoutMs: config.timeoutMs,
        disableAfterFailures: config.disableAfterFailures,
        stop: stopping.signal,
      })
      const worker = startDeliveryWorker({ store, runAttempt, clock, log, metrics, config })
      const routeDeps = {
        store,
        clock,
        newId,
        runAttempt,
        timeoutMs: config.timeoutMs,
        wakeWorker: worker.wake,
        targetPolicy: { allowHttp: config.allowHttp, allowPrivateTargets: config.allowPrivateTargets, resolve },
      }
      return {
        projectRoutes: [testRoute(routeDeps), ...webhookRoutes(routeDeps), ...deliveryRoutes(routeDeps)],
        async close() {
          // Attempts in flight are cut short and given back unattempted, to be sent after restart.
          stopping.abort(new Error('the gateway is stopping'))
          await worker.close()
          await dispatcher.destroy()
          await store.close()
        },
      }
    },
  }
}

export default createWebhooksPlugin()
