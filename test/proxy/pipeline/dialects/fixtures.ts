// A gateway whose providers are the mock upstream (all three with keys), and the keys the dialect
// tests need: a gateway key, a project key, a key of a project without budget, and a development
// key of a Free project (burst 2).
import type { Test } from 'tap'
import { startMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../../helpers/start-gateway.ts'

export interface DialectGateway {
  readonly url: string
  readonly mock: MockUpstream
  /** The project of the `sk` and `pk` keys. */
  readonly projectId: string
  readonly keys: {
    readonly sk: string
    readonly pk: string
    readonly broke: string
    readonly limited: string
  }
}

export interface DialectGatewayOptions {
  /** Appended to the mock's URL in OPENAI_BASE_URL and MISTRAL_BASE_URL, e.g. '/v1'. */
  readonly openAiBasePath?: string
  readonly anthropicBasePath?: string
  readonly mock?: MockUpstreamOptions
}

export async function startDialectGateway(t: Test, options: DialectGatewayOptions = {}): Promise<DialectGateway> {
  const mock = await startMockUpstream(options.mock)
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const main = await seedProject(dataDir, {}, [
    { type: 'sk', env: 'prod' },
    { type: 'pk', env: 'prod' },
  ])
  const broke = await seedProject(dataDir, { name: 'broke', budgetDollars: 0.000001 })
  const limited = await seedProject(dataDir, { name: 'limited', plan: 'free' }, [{ type: 'sk', env: 'dev' }])
  const openAiBase = `${mock.url}${options.openAiBasePath ?? ''}`
  const { url } = await startTestGateway(t, {
    dataDir,
    env: {
      OPENAI_API_KEY: 'sk-upstream-openai',
      OPENAI_BASE_URL: openAiBase,
      MISTRAL_API_KEY: 'upstream-mistral',
      MISTRAL_BASE_URL: openAiBase,
      ANTHROPIC_API_KEY: 'sk-ant-upstream',
      ANTHROPIC_BASE_URL: `${mock.url}${options.anthropicBasePath ?? ''}`,
    },
    overrides: { plugins: { router: { retry: { baseDelayMs: 0, maxDelayMs: 0 } } } },
  })
  return {
    url,
    mock,
    projectId: main.projectId,
    keys: { sk: main.keys[0]!.key, pk: main.keys[1]!.key, broke: broke.keys[0]!.key, limited: limited.keys[0]!.key },
  }
}

/** A fetch that counts the requests an SDK sends, retries included. */
export function countingFetch(): { readonly fetch: typeof fetch; readonly count: () => number } {
  let sent = 0
  return {
    fetch: ((input, init) => {
      sent++
      return fetch(input, init)
    }) as typeof fetch,
    count: () => sent,
  }
}

export const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] },
}

/** The rejection of `promise`, which must be an instance of `expected` (an SDK's typed error). */
export async function rejectsWith<E>(
  t: Test,
  promise: Promise<unknown>,
  expected: abstract new (...args: never[]) => E,
  what?: string,
): Promise<E | undefined> {
  try {
    await promise
  } catch (err) {
    t.ok(err instanceof expected, what ?? `rejects with ${expected.name}`)
    return err instanceof expected ? err : undefined
  }
  t.fail(`expected a rejection with ${expected.name}`)
  return undefined
}

export interface LocalGateway {
  readonly url: string
  readonly projectId: string
  readonly key: string
}

/** A gateway with no provider key: the local provider answers every model, offline. */
export async function startLocalGateway(t: Test): Promise<LocalGateway> {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  return { url, projectId: seeded.projectId, key: seeded.keys[0]!.key }
}

/** The SDK's typed error, with the status (and message) the gateway gave it; no status for an error event in a stream. */
export async function refused(
  t: Test,
  promise: Promise<unknown>,
  expected: abstract new (...args: never[]) => Error,
  status: number | undefined,
  message?: RegExp,
): Promise<void> {
  const err: unknown = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(err instanceof expected, `rejects with ${expected.name}`)
  t.equal((err as { status?: number } | undefined)?.status, status)
  if (message !== undefined) t.match((err as Error | undefined)?.message, message)
}
