// The gateway with OpenAI, Anthropic and Mistral all pointed at one mock provider, and one seeded
// project whose key calls it. Torn down with the test.
import type { Test } from 'tap'
import { startMockUpstream, type MockUpstream } from './mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway, type GatewayUnderTest } from './start-gateway.ts'

export interface MockedGateway extends GatewayUnderTest {
  readonly mock: MockUpstream
  readonly key: string
  readonly projectId: string
}

/** `overrides` as for startTestGateway (the core's settings and `plugins`). */
export async function startMockedGateway(t: Test, overrides: Record<string, unknown> = {}): Promise<MockedGateway> {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const env = {
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test-openai',
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: 'test-anthropic',
    MISTRAL_BASE_URL: mock.url,
    MISTRAL_API_KEY: 'test-mistral',
  }
  const started = await startTestGateway(t, { dataDir, env, overrides })
  return { ...started, mock, key: seeded.keys[0]!.key, projectId: seeded.projectId }
}
