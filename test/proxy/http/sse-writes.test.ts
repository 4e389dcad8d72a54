// Socket writes of a stream: the frames of one turn of the event loop leave in one write, so an
// answer whose every event came in one read of the provider costs one write, its end and
// trailers included; frames written in later turns still go out as they come.
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setImmediate as nextTurn } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { SseWriter } from '../../../proxy/http/sse.ts'

/** A server whose one answer is written by `answer`; what it handed to the socket is counted. */
async function serve(t: Test, answer: (sse: SseWriter) => Promise<void>) {
  const counted = { writes: 0 }
  const server = createServer((_req, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: string) => boolean
    const end = res.end.bind(res) as (chunk: string) => ServerResponse
    res.write = ((chunk: string) => {
      counted.writes++
      return write(chunk)
    }) as typeof res.write
    res.end = ((chunk: string) => {
      if (chunk !== undefined && chunk !== '') counted.writes++
      return end(chunk)
    }) as typeof res.end
    const sse = new SseWriter(res, new AbortController().signal)
    sse.open({ headers: {}, trailers: ['x-done'] })
    // As in the gateway, the answer is written from promise callbacks (after the provider's reads).
    void Promise.resolve().then(() => answer(sse))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  const text = await res.body.text()
  return { text, trailers: res.trailers, writes: counted.writes }
}

t.test('frames written in one turn go out with the end and the trailers in one write', async (t) => {
  const { text, trailers, writes } = await serve(t, async (sse) => {
    sse.write('data: 1\n\n')
    // A promise callback later in the same turn, as the provider's end arrives.
    await Promise.resolve()
    sse.write('data: 2\n\n')
    await Promise.resolve()
    sse.close('data: end\n\n', { 'x-done': 'yes' })
  })
  t.equal(text, 'data: 1\n\ndata: 2\n\ndata: end\n\n', 'every frame, in order')
  t.equal(trailers['x-done'], 'yes')
  t.equal(writes, 1, 'one write')
})

t.test('frames written in different turns go out as they come', async (t) => {
  const { text, writes } = await serve(t, async (sse) => {
    sse.write('data: 1\n\n')
    await nextTurn()
    sse.write('data: 2\n\n')
    await nextTurn()
    sse.end('data: end\n\n')
  })
  t.equal(text, 'data: 1\n\ndata: 2\n\ndata: end\n\n')
  t.equal(writes, 3, 'a write per turn')
})

t.test("once the provider's answer has ended, its last frames wait for an end that comes later in the turn, and leave with it", async (t) => {
  const { text, trailers, writes } = await serve(t, async (sse) => {
    sse.write('data: 1\n\n')
    await Promise.resolve()
    sse.ending()
    // The charge's journal write: queued in this turn's callbacks, made in its check phase.
    await nextTurn()
    sse.close('data: end\n\n', { 'x-done': 'yes' })
  })
  t.equal(text, 'data: 1\n\ndata: end\n\n')
  t.equal(trailers['x-done'], 'yes')
  t.equal(writes, 1, 'one write')
})

t.test('without the end of the answer announced, the same frames leave before the end', async (t) => {
  const { text, writes } = await serve(t, async (sse) => {
    sse.write('data: 1\n\n')
    await Promise.resolve()
    await nextTurn()
    sse.close('data: end\n\n')
  })
  t.equal(text, 'data: 1\n\ndata: end\n\n')
  t.equal(writes, 2)
})

t.test('frames held for an end that takes longer than a turn go out on their own', async (t) => {
  const { text, writes } = await serve(t, async (sse) => {
    sse.write('data: 1\n\n')
    sse.ending()
    await nextTurn()
    await nextTurn()
    await nextTurn()
    sse.close('data: end\n\n')
  })
  t.equal(text, 'data: 1\n\ndata: end\n\n')
  t.equal(writes, 2, 'held one turn, not until the end')
})
