import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Agent, type Dispatcher } from 'undici'
import { sendOnce } from '../../bench/stream-client.ts'
import { until } from '../helpers/until.ts'

// A stream that opens with an empty event and sends its text only when the test says so.
const waiting: ServerResponse[] = []
const server = createServer((req, res) => {
  req.resume()
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.write('data: {"delta":{"role":"assistant","content":""}}\n\n')
  waiting.push(res)
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const agent = new Agent()
t.teardown(async () => {
  await agent.close()
  server.close()
})
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`

/** The agent, telling when the client has had the first bytes of an answer. */
function observed(onData: () => void): Dispatcher {
  return agent.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onResponseStart: (controller, status, headers, message) => handler.onResponseStart?.(controller, status, headers, message),
        onResponseData: (controller, chunk) => {
          handler.onResponseData?.(controller, chunk)
          onData()
        },
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, err) => handler.onResponseError?.(controller, err),
      }),
  )
}

async function released(): Promise<ServerResponse> {
  await until(() => waiting.length > 0, 'a response waiting to be released')
  return waiting.shift()!
}

t.test('the first text is timed when it comes, not with the empty opening event', async (t) => {
  const opened = Promise.withResolvers<void>()
  const sample = sendOnce(observed(opened.resolve), {
    load: { url, method: 'POST', headers: {}, body: '{}' },
    endMarker: '[DONE]',
    textMarker: /"content":"[^"]/,
  })
  const res = await released()
  await opened.promise
  const textSentAfter = performance.now()
  res.end('data: {"delta":{"content":"Hello"}}\n\ndata: [DONE]\n\n')
  const { ttfbMs, ttftMs, startedAt, isComplete } = await sample
  t.ok(isComplete)
  t.ok(ttfbMs <= textSentAfter - startedAt, 'the first byte came before the text was sent')
  t.ok(ttftMs >= textSentAfter - startedAt, 'the first text is timed when it came')
})

t.test('without a text marker there is no time to the first text', async (t) => {
  const sample = sendOnce(agent, { load: { url, method: 'POST', headers: {}, body: '{}' }, endMarker: '[DONE]' })
  ;(await released()).end('data: {"delta":{"content":"Hello"}}\n\ndata: [DONE]\n\n')
  t.ok(Number.isNaN((await sample).ttftMs))
})
