// The endpoints the core itself answers: the two AI endpoints (their answer is the model call),
// the client dialects' endpoints, the spec's keyed health check, the keyless probes for load
// balancers, and /metrics.
import { chatRequestSchema, completeRequestSchema } from '../pipeline/ai-request.ts'
import { anthropicRoutes } from '../pipeline/dialects/anthropic/index.ts'
import { openAiRoutes } from '../pipeline/dialects/openai/index.ts'
import { completionResultSchema, healthSchema, livenessSchema, metricsSchema, readinessSchema } from './core-answers.ts'
import type { Readiness } from './readiness.ts'
import { Reply } from './reply.ts'
import { ANY_KEY, type Route } from './routes.ts'

export const CHAT_ROUTE: Route = { method: 'POST', path: '/api/ai/chat', name: 'ai_chat', kind: 'ai', keyTypes: ['sk'], stream: true }
export const COMPLETE_ROUTE: Route = {
  method: 'POST',
  path: '/api/ai/complete',
  name: 'ai_complete',
  kind: 'ai',
  keyTypes: ['sk'],
  stream: false,
  docs: { response: completionResultSchema },
}

export function aiRequestSchemaFor(route: Route) {
  return route.stream ? chatRequestSchema : completeRequestSchema
}

/** Where /metrics text comes from: this process's registry, or the whole cluster's. */
export interface MetricsSource {
  readonly text: () => Promise<string>
  readonly contentType: string
}

/**
 * `readiness`: /readyz answers 503 only for the parts without which nothing could be served, and
 * 200 `degraded` for the dependencies the gateway serves around.
 * `draining`: the gateway is stopping; /readyz answers 503 so load balancers send no more.
 * `details`: the shared stores' states and the plugins' facts for /readyz's body, beside `status`
 * (PluginHooks.readiness).
 */
export function coreRoutes(
  metrics: MetricsSource,
  readiness: Pick<Readiness, 'notReady' | 'degraded'>,
  draining: () => boolean,
  serveMetrics: boolean,
  details: () => Record<string, unknown>,
): Route[] {
  const routes: Route[] = [
    CHAT_ROUTE,
    COMPLETE_ROUTE,
    ...openAiRoutes,
    ...anthropicRoutes,
    {
      method: 'GET',
      path: '/api/health',
      name: 'health',
      kind: 'keyed',
      keyTypes: ANY_KEY,
      stream: false,
      docs: { response: healthSchema },
      handle: (ctx) => Reply.json({ status: 'ok', authenticated: true, project_id: ctx.caller?.project.id }),
    },
    {
      method: 'GET',
      path: '/healthz',
      name: 'healthz',
      kind: 'open',
      keyTypes: [],
      stream: false,
      probe: true,
      docs: { response: livenessSchema },
      handle: () => Reply.json({ status: 'ok' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      name: 'readyz',
      kind: 'open',
      keyTypes: [],
      stream: false,
      probe: true,
      docs: { response: readinessSchema },
      handle: () => {
        if (draining()) return Reply.json({ status: 'draining' }, 503)
        const notReady = readiness.notReady()
        const degraded = readiness.degraded()
        const named = degraded.length === 0 ? {} : { degraded }
        if (notReady.length > 0) return Reply.json({ status: 'not ready', notReady, ...named, ...details() }, 503)
        return Reply.json({ status: degraded.length === 0 ? 'ready' : 'degraded', ...named, ...details() })
      },
    },
  ]
  if (serveMetrics) routes.push(metricsRoute(metrics))
  return routes
}

export function metricsRoute(metrics: MetricsSource): Route {
  return {
    method: 'GET',
    path: '/metrics',
    name: 'metrics',
    kind: 'open',
    keyTypes: [],
    stream: false,
    probe: true,
    docs: { response: metricsSchema, contentType: 'text/plain' },
    handle: async () => Reply.text(await metrics.text(), metrics.contentType),
  }
}
