// Micro-benchmark of the plugin chain runner (proxy/pipeline/chain.ts): nanoseconds per request through
// runRequest and runComplete with 0, 6 and 20 no-op plugins, so the cost of each hook stays
// visible as plugins are added. A measurement script, not a test: `node bench/chain.ts`.
import { z } from 'zod'
import { pino } from 'pino'
import { buildChain, type Chain } from '../proxy/pipeline/chain.ts'
import type { CompletedContext, RouteInfo } from '../proxy/pipeline/context.ts'
import { createMetrics } from '../proxy/metrics.ts'
import type { GatewayPlugin, PluginHooks, PluginName } from '../proxy/pipeline/plugin.ts'

const PLUGIN_COUNTS = [0, 6, 20] as const
const ITERATIONS = 200_000
const WARMUP_ITERATIONS = 50_000
/** The median of several rounds, so one GC pause or a busy neighbour does not decide the figure. */
const ROUNDS = 7

const ROUTE: RouteInfo = { name: 'ai_complete', kind: 'ai', keyTypes: ['sk'], stream: false }

function noopPlugins(count: number): Array<{ plugin: GatewayPlugin; hooks: PluginHooks }> {
  return Array.from({ length: count }, (_, i) => {
    const hooks: PluginHooks = { onRequest() {}, onComplete() {} }
    // Plugin names are a closed list in production; these stand-ins only need to be distinct.
    const plugin: GatewayPlugin = { name: `noop-${i}` as PluginName, order: 1000 + i, gates: ['ai'], schema: z.object({}), setup: () => hooks }
    return { plugin, hooks }
  })
}

function context(): CompletedContext {
  return {
    id: 'req_bench',
    requestId: 'req_bench',
    receivedAt: 0,
    method: 'POST',
    path: '/api/ai/complete',
    route: ROUTE,
    params: {},
    query: new URLSearchParams(),
    headers: {},
    clientIp: '127.0.0.1',
    body: undefined,
    ai: undefined,
    signal: new AbortController().signal,
    log: pino({ level: 'silent' }),
    state: {},
    responseHeaders: {},
    trailerNames: [],
    doneFields: {},
    streamedText: '',
    outcome: { status: 200, reason: 'ok', durationMs: 1 },
  }
}

async function timeRequests(chain: Chain, ctx: CompletedContext, iterations: number): Promise<number> {
  const started = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) await chain.runRequest(ctx)
  return Number(process.hrtime.bigint() - started) / iterations
}

function timeCompletes(chain: Chain, ctx: CompletedContext, iterations: number): number {
  const started = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) chain.runComplete(ctx)
  return Number(process.hrtime.bigint() - started) / iterations
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

const metrics = createMetrics()
const ctx = context()
const results: Array<{ plugins: number; request: number; complete: number }> = []
for (const count of PLUGIN_COUNTS) {
  const chain = buildChain(noopPlugins(count), metrics)
  await timeRequests(chain, ctx, WARMUP_ITERATIONS)
  timeCompletes(chain, ctx, WARMUP_ITERATIONS)
  const requests: number[] = []
  const completes: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    requests.push(await timeRequests(chain, ctx, ITERATIONS))
    completes.push(timeCompletes(chain, ctx, ITERATIONS))
  }
  results.push({ plugins: count, request: median(requests), complete: median(completes) })
}

const base = results[0]
console.log(`chain runner, ns per request (median of ${ROUNDS} rounds of ${ITERATIONS}); Node ${process.version}`)
console.log('plugins  runRequest  runComplete    total  per plugin vs 0')
for (const { plugins, request, complete } of results) {
  const total = request + complete
  const perPlugin = plugins === 0 || base === undefined ? '' : ((total - base.request - base.complete) / plugins).toFixed(1)
  console.log(
    `${String(plugins).padStart(7)}  ${request.toFixed(1).padStart(10)}  ${complete.toFixed(1).padStart(11)}  ${total.toFixed(1).padStart(7)}  ${perPlugin.padStart(16)}`,
  )
}
