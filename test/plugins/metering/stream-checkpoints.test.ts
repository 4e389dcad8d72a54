// A stream's first checkpoint is recorded in the turn it is admitted, with those of the other
// streams admitted in that turn; its progress is then written by the periodic passes.
import t from 'tap'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import type { StreamCheckpoint } from '../../../plugins/metering/store/records.ts'
import { streamCheckpoints } from '../../../plugins/metering/stream-checkpoints.ts'
import { CHAT_ROUTE, makeContext } from '../../helpers/make-context.ts'
import { until } from '../../helpers/until.ts'

function following(intervalMs: number) {
  const started: number[][] = []
  const written: number[][] = []
  const tokensOf = (progress: readonly StreamCheckpoint[]) => progress.map((p) => p.entry.completionTokens)
  const streams = streamCheckpoints({
    intervalMs,
    count: (texts) => texts.map((text) => text.length),
    checkpointOf: (ctx, completionTokens) => ({
      entry: {
        id: ctx.id,
        projectId: 'p',
        keyId: 'k',
        at: '',
        month: '2026-11',
        day: '2026-11-21',
        provider: 'openai',
        model: 'gpt-4o',
        promptTokens: 10,
        completionTokens,
        costMicros: 0,
        cacheHit: false,
        outcome: 'recovered',
      },
      owner: 'me',
      limitMicros: 0,
    }),
    start: async (progress) => void started.push(tokensOf(progress)),
    write: async (progress) => void written.push(tokensOf(progress)),
    track: () => undefined,
  })
  t.teardown(() => streams.close())
  return { streams, started, written }
}

const stream = (id: string): RequestContext => makeContext({ id, route: CHAT_ROUTE })

t.test('the streams admitted in one turn get their first checkpoint together, as the turn ends', async (t) => {
  const { streams, started } = following(60_000)
  const [a, b, gone] = [stream('a'), stream('b'), stream('gone')]
  streams.follow(a)
  streams.follow(b)
  streams.follow(gone)
  t.equal(streams.end(gone), false, 'one that ends in its first turn needs no checkpoint')
  t.same(started, [], 'nothing is recorded in the hook itself')
  await nextTurn()
  t.same(started, [[0, 0]], 'one record for the turn, each stream at its prompt alone')
  streams.follow(stream('c'))
  await nextTurn()
  t.same(started, [[0, 0], [0]])
  t.equal(streams.end(a), false, 'a first checkpoint leaves no store checkpoint for the settlement to remove')
})

t.test("a running stream's new text is written by the periodic passes, and its settlement then removes the checkpoint", async (t) => {
  const { streams, written } = following(20)
  const ctx = stream('s')
  streams.follow(ctx)
  ctx.streamedText = 'four'
  await until(() => written.length === 1, 'a pass')
  ctx.streamedText += 'three'
  await until(() => written.length === 2, 'the next pass')
  t.same(written, [[4], [9]], 'each pass counts only the new text')
  t.equal(streams.end(ctx), true)
})
