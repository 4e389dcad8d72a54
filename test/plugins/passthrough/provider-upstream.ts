// A small provider for the pass-through tests: it records what reaches it (method, path, headers,
// body bytes) and answers by path, as JSON or as SSE, with or without usage.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface ProviderUpstream {
  readonly url: string
  readonly received: Received[]
  /** Resolves when the client of the never-ending stream has gone away. */
  readonly hangingClosed: Promise<void>
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_provider_1', 'set-cookie': 'provider=1' })
  res.end(JSON.stringify(body))
}

const sse = (data: unknown, event?: string) => `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`

export async function startProviderUpstream(t: Test): Promise<ProviderUpstream> {
  const received: Received[] = []
  let hangingClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    hangingClosed = resolve
  })
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = req.url ?? ''
      received.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      const route = path.replace(/^\/(?:prefix|anthropic)/, '').split('?')[0]
      switch (route) {
        case '/v1/embeddings':
          return json(res, {
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
            model: 'text-embedding-3-small',
            usage: { prompt_tokens: 8000, total_tokens: 8000 },
          })
        case '/v1/chat/completions':
          return json(res, { id: 'c1', model: 'gpt-4o-2024-08-06', choices: [], usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } })
        case '/v1/moderations':
          return json(res, { id: 'm1', model: 'omni-moderation-latest', results: [{ flagged: false }] })
        case '/v1/mystery':
          return json(res, { model: 'mystery-model', usage: { input_tokens: 5, output_tokens: 5 } })
        case '/v1/files':
          return json(res, { object: 'list', data: [], query: path.split('?')[1] ?? '' })
        case '/v1/responses': {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write(sse({ type: 'response.created', response: { model: 'gpt-4o-mini-2024-07-18', usage: null } }, 'response.created'))
          res.write(sse({ type: 'response.output_text.delta', delta: 'Hello' }, 'response.output_text.delta'))
          res.write(
            sse(
              {
                type: 'response.completed',
                response: { model: 'gpt-4o-mini-2024-07-18', usage: { input_tokens: 12000, output_tokens: 3000, total_tokens: 15000 } },
              },
              'response.completed',
            ),
          )
          return res.end()
        }
        case '/v1/messages/hang': {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write(
            sse({ type: 'message_start', message: { model: 'claude-3-haiku-20240307', usage: { input_tokens: 4000, output_tokens: 1 } } }, 'message_start'),
          )
          res.on('close', () => hangingClosed())
          return
        }
        case '/v1/never':
          return
        default:
          return json(res, { error: { message: `no ${route}` } }, 404)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, hangingClosed: closed }
}
