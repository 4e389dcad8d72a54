// Two mock upstreams and a gateway whose router the test configures, with the keys in the
// environment variables the config names, a manual clock and the official openai client.
import OpenAI from 'openai'
import type { Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { type ManualClock, manualClock } from '../../helpers/manual-clock.ts'
import { startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.ts'
import { seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

export const KEYS = { KEY_A: 'sk-deployment-a-0123456789', KEY_B: 'sk-deployment-b-0123456789' }
export const NO_BACKOFF = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 }

export async function mocks(t: Test, options: Parameters<typeof startMockUpstream>[0] = {}): Promise<[MockUpstream, MockUpstream]> {
  const a = await startMockUpstream(options)
  const b = await startMockUpstream(options)
  t.teardown(() => Promise.all([a.close(), b.close()]))
  return [a, b]
}

export async function gatewayWith(
  t: Test,
  router: Record<string, unknown>,
  clock: ManualClock = manualClock(Date.UTC(2026, 0, 5, 12)),
  env: Readonly<Record<string, string>> = {},
) {
  const gw = await startTestGateway(t, { env: { ...KEYS, ...env }, clock, overrides: { plugins: { router: { retry: NO_BACKOFF, ...router } } } })
  const { projectId, keys } = await seedProject(gw.dataDir)
  const openai = new OpenAI({ apiKey: keys[0]!.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  return { ...gw, projectId, key: keys[0]!.key, openai, clock }
}

export const twoDeployments = (a: MockUpstream, b: MockUpstream, weights: readonly [number, number] = [1, 1]) => ({
  deployments: [
    { name: 'a', baseUrl: a.url, apiKeyEnv: 'KEY_A', weight: weights[0] },
    { name: 'b', baseUrl: b.url, apiKeyEnv: 'KEY_B', weight: weights[1] },
  ],
})

export const ask = (openai: OpenAI, text: string, model = 'gpt-4o-mini') =>
  openai.chat.completions.create({ model, messages: [{ role: 'user', content: text }] }).withResponse()

/** The counter's value for one deployment, from /metrics. */
export async function counter(url: string, name: string, deployment: string): Promise<number> {
  const text = (await call(`${url}/metrics`)).body as string
  const line = text.split('\n').find((l) => l.startsWith(`${name}{provider="openai",deployment="${deployment}"}`))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}
