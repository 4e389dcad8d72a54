// Shared pieces of the router's tests: plugin deps without a store or threads, a started router,
// and small helpers to drain streams and catch rejections.
import { Registry } from 'prom-client'
import { pino } from 'pino'
import type { Test } from 'tap'
import type { z } from 'zod'
import type { Message } from '../../../proxy/pipeline/ai-request.ts'
import { systemClock } from '../../../proxy/kit/clock.ts'
import type { AuthState } from '../../../plugins/auth/state.ts'
import type { PluginDeps, PluginHooks } from '../../../proxy/pipeline/plugin.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { createUpstream, type Upstream } from '../../../proxy/pipeline/upstream.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import router from '../../../plugins/router/index.ts'
import { routerSchema } from '../../../plugins/router/schema.ts'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'

export const TEST_KEY = 'sk-test-0123456789abcdef'

/** A pool that counts inline and remembers what it was asked to count. */
export function inlinePool(): WorkerPool & { readonly counted: string[] } {
  const counted: string[] = []
  const run = async (_task: string, input: readonly string[]): Promise<number[]> => {
    counted.push(...input)
    return input.map(countTokens)
  }
  return { run: run as WorkerPool['run'], queueSize: 0, utilization: 0, close: async () => {}, counted }
}

const unusedStore: PluginStore = {
  open: () => {
    throw new Error('the router opens no database')
  },
  transaction: () => {
    throw new Error('the router opens no database')
  },
  grouped: () => {
    throw new Error('the router opens no database')
  },
  get directory(): string {
    throw new Error('the router writes no files')
  },
}

export function pluginDeps(pool: WorkerPool = inlinePool()): PluginDeps {
  return {
    store: unusedStore,
    pool,
    metrics: new Registry(),
    log: pino({ level: 'silent' }),
    catalog: modelCatalog(),
    clock: systemClock,
    track: () => {},
    events: {
      emit: () => {
        throw new Error('the router emits no events')
      },
      pending: () => [],
      remove: () => {},
      onEmit: () => {},
    },
    services: {},
  }
}

/** The router set up with `config` (retries without delay unless given), closed with the test. */
export async function startRouter(t: Test, config: z.input<typeof routerSchema> = {}, pool?: WorkerPool): Promise<PluginHooks> {
  const hooks = await router.setup(routerSchema.parse({ retry: { baseDelayMs: 0, maxDelayMs: 0 }, local: { chunkDelayMs: 0 }, ...config }), pluginDeps(pool))
  t.teardown(() => hooks.close?.())
  return hooks
}

/** An undici upstream with short timeouts, closed with the test. */
export function testUpstream(t: Test, timeouts: { firstByteTimeoutMs?: number; idleTimeoutMs?: number } = {}): Upstream {
  const upstream = createUpstream({
    connections: 8,
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: timeouts.firstByteTimeoutMs ?? 5000,
    idleTimeoutMs: timeouts.idleTimeoutMs ?? 5000,
  })
  t.teardown(() => upstream.close())
  return upstream
}

export function authState(testMode: boolean): AuthState {
  return {
    keyId: 'key_test',
    keyType: 'sk',
    env: testMode ? 'dev' : 'prod',
    testMode,
    project: {
      id: 'prj_test',
      name: 'test',
      plan: 'enterprise',
      budgetDollars: 100,
      cacheTtlSeconds: 60,
      cacheEnabled: true,
      governor: { enabled: false, strictMode: false, redactOutput: false, autoApproveThreshold: 50, customRules: [], version: 1 },
      createdAt: '2025-01-01T00:00:00.000Z',
    },
  }
}

export const user = (content: string) => ({ role: 'user', content }) satisfies Message
export const assistant = (content: string) => ({ role: 'assistant', content }) satisfies Message
export const system = (content: string) => ({ role: 'system', content }) satisfies Message

/** Every event of a stream, its batches one after the other. */
export async function collect<T>(batches: AsyncIterable<readonly T[]>): Promise<T[]> {
  const all: T[] = []
  for await (const batch of batches) all.push(...batch)
  return all
}

/** The rejection of a promise, or a failure when it resolves. */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection, but the promise resolved')
}
