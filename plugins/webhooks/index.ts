// Webhooks: registration endpoints, and durable, signed, retried delivery of the events other
// plugins put in the outbox. The plugin has no request hooks; its work is its routes and the
// delivery worker it starts (see delivery-worker.ts for the loop, fan-out.ts for the outbox).
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import { createDeliveryRecords } from './delivery-records.ts'
import { deliveryRoutes } from './delivery-routes.ts'
import { startDeliveryWorker } from './delivery-worker.ts'
import { createDeliveryDispatcher } from './guarded-dispatcher.ts'
import { createIds } from './ids.ts'
import { createWebhookMetrics } from './metrics.ts'
import { openWebhookDatabases } from './records.ts'
import { systemResolve, type ResolveHost } from './resolve-host.ts'
import { createAttemptRunner } from './run-attempt.ts'
import { webhooksSchema } from './schema.ts'
import { createSecretBox } from './secret-box.ts'
import { testRoute } from './test-route.ts'
import { createWebhookRecords } from './webhook-records.ts'
import { webhookRoutes } from './webhook-routes.ts'

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
    async setup(config, { store, events, clock, log, metrics: registry }) {
      const db = openWebhookDatabases(store)
      const newId = createIds(clock)
      const hooks = createWebhookRecords(db, await createSecretBox(store, config.encryptionKey), clock, newId)
      const deliveries = createDeliveryRecords(db, newId)
      const metrics = createWebhookMetrics(registry, () => deliveries.pendingCount())
      const dispatcher = createDeliveryDispatcher({ allowPrivateTargets: config.allowPrivateTargets, resolve, connectTimeoutMs: config.timeoutMs })
      const stopping = new AbortController()
      const runAttempt = createAttemptRunner({
        store, events, hooks, deliveries, dispatcher, clock, log, metrics, newId,
        timeoutMs: config.timeoutMs, disableAfterFailures: config.disableAfterFailures, stop: stopping.signal,
      })
      const worker = startDeliveryWorker({ store, outbox: events, hooks, deliveries, runAttempt, clock, log, metrics, config })
      const routeDeps = {
        store, hooks, deliveries, clock, newId, runAttempt, timeoutMs: config.timeoutMs, wakeWorker: worker.wake,
        targetPolicy: { allowHttp: config.allowHttp, allowPrivateTargets: config.allowPrivateTargets, resolve },
      }
      return {
        projectRoutes: [testRoute(routeDeps), ...webhookRoutes(routeDeps), ...deliveryRoutes(routeDeps)],
        async close() {
          // Attempts in flight are cut short and given back unattempted, to be sent after restart.
          stopping.abort(new Error('the gateway is stopping'))
          await worker.close()
          await dispatcher.destroy()
        },
      }
    },
  }
}

export default createWebhooksPlugin()
