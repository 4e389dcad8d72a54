import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { render, type Finish } from '../../../proxy/http/render.ts'
import { Reply, type WholeReply } from '../../../proxy/http/reply.ts'
import { PermissionError, UpstreamError } from '../../../proxy/pipeline/errors.ts'
import { call } from '../../helpers/http.ts'
import { makeContext } from '../../helpers/make-context.ts'

/** The answer render writes for `reply`, and how it says the request ended. */
async function rendered(t: Test, reply: WholeReply, path = '/api/ai/complete') {
  let finish: Finish | undefined
  const server = createServer((_req, res: ServerResponse) => {
    const ctx = makeContext({ requestId: 'req_1', path, responseHeaders: { 'x-governor-validated': 'true' } })
    finish = render(ctx, res, reply)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const answer = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  return { answer, finish }
}

t.test("a JSON reply carries the request id and the plugins' headers; below 400 it is the given success", async (t) => {
  const { answer, finish } = await rendered(t, Reply.json({ ok: true }, 201, { 'x-extra': '1' }))
  t.equal(answer.status, 201)
  t.same(answer.body, { ok: true })
  t.match(answer.headers, { 'x-request-id': 'req_1', 'x-governor-validated': 'true', 'x-extra': '1' })
  t.same(finish, { status: 201, reason: 'short_circuit' })
})

t.test("an error reply is written in the route's error shape and ends with its code and outcome", async (t) => {
  const { answer, finish } = await rendered(t, Reply.error(new PermissionError('This key may not call this route.')))
  t.equal(answer.status, 403)
  t.match(answer.body, { code: 'insufficient_permissions' })
  t.equal(answer.headers['x-governor-validated'], 'true')
  t.same(finish, { status: 403, reason: 'client_error', errorCode: 'insufficient_permissions' })
  const upstream = await rendered(t, Reply.error(new UpstreamError('The provider failed.', true)))
  t.match(upstream.finish, { status: 502, reason: 'upstream_error', errorCode: 'upstream_error' })
})

t.test('text and bytes are written as they are, with their content type', async (t) => {
  const text = await rendered(t, Reply.text('hello'))
  t.equal(text.answer.body, 'hello')
  t.match(text.answer.headers['content-type'], /^text\/plain/)
  const bytes = await rendered(t, Reply.bytes(new TextEncoder().encode('<p>'), { 'content-type': 'text/html' }))
  t.equal(bytes.answer.body, '<p>')
  t.equal(bytes.answer.headers['content-type'], 'text/html')
  t.same(bytes.finish, { status: 200, reason: 'short_circuit' })
})
