import t from 'tap'
import { request } from 'undici'
import { COMPLETE_BODY } from '../../../bench/payload.ts'
import { Fleet } from '../../../bench/processes.ts'
import type { MockSpec } from '../../../bench/targets/mock-upstream.ts'
import type { SpecFloorSpec } from '../../../bench/targets/spec-floor.ts'

// The spec floor is the stage table's yardstick: it must do the work it claims, or the figure
// beside the gateway's would say less than a gateway must do.
const fleet = new Fleet()
t.teardown(() => fleet.stopAll())

const mockSpec: MockSpec = { latencyMs: 0, chunks: 4, chunkDelayMs: 0 }
const mock = await fleet.start<{ url: string }>('mock', 'mock-upstream', mockSpec)
const floorSpec: SpecFloorSpec = { upstreamUrl: mock.info.url, connections: 2 }
const floor = await fleet.start<{ url: string }>('spec floor', 'spec-floor', floorSpec)

const post = (path: string, body: string) => request(`${floor.info.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly totalTokens: number
  readonly costCents: number
}

t.test("a complete answer has the spec's body and headers, from the provider's answer", async (t) => {
  const answer = await post('/api/ai/complete', COMPLETE_BODY)
  t.equal(answer.statusCode, 200)
  const body = (await answer.body.json()) as { text: string; provider: string; model: string; cacheHit: boolean; usage: Usage }
  t.equal(body.text, 'The quick brown fox')
  t.equal(body.provider, 'openai')
  t.equal(body.model, 'gpt-4o-mini')
  t.equal(body.cacheHit, false)
  t.equal(body.usage.completionTokens, 4)
  t.equal(body.usage.totalTokens, body.usage.promptTokens + 4)
  t.ok(body.usage.costCents > 0, 'the answer is priced')
  t.equal(answer.headers['x-gateway-model'], 'openai/gpt-4o-mini')
  t.equal(answer.headers['x-cache-status'], 'MISS')
  t.equal(answer.headers['x-gateway-completion-tokens'], '4')
  t.match(answer.headers['x-request-id'], /^[0-9a-f-]{36}$/)
})

t.test('a chat answer streams a delta event per piece, then the done event and the late headers as trailers', async (t) => {
  const answer = await post('/api/ai/chat', COMPLETE_BODY)
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers['content-type'], 'text/event-stream; charset=utf-8')
  const text = await answer.body.text()
  const events = text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [event, data] = frame.split('\n')
      return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> }
    })
  t.same(
    events.slice(0, -1).map((e) => e.event),
    ['delta', 'delta', 'delta', 'delta'],
  )
  t.equal(
    events
      .slice(0, -1)
      .map((e) => e.data.text)
      .join(''),
    'The quick brown fox',
  )
  const done = events.at(-1)!
  t.equal(done.event, 'done')
  t.equal((done.data.usage as Usage).completionTokens, 4)
  t.equal(answer.trailers['x-gateway-completion-tokens'], '4')
})

t.test('a body that is not JSON, or lacks the model or the messages, is a 400', async (t) => {
  for (const body of ['not json', '{"model":"gpt-4o-mini"}', '{"messages":[]}']) {
    const answer = await post('/api/ai/complete', body)
    t.equal(answer.statusCode, 400, body)
    await answer.body.dump()
  }
})
