// Child entry: the mock provider, an OpenAI-compatible /v1/chat/completions with the peer
// benchmark's behaviour: a fixed delay before the answer starts, then JSON, or SSE in `chunks`
// content events `chunkDelayMs` apart, a usage event when asked for, and `data: [DONE]`. It keeps no
// record of what it saw beyond a count (GET /stats), so its memory stays flat however long a run
// lasts.
import { createServer, type ServerResponse } from 'node:http'
import { listenLoopback, runChild, specOf } from './lifecycle.ts'

export interface MockSpec {
  /** Wait before the answer's headers. */
  readonly latencyMs: number
  /** Content events in a streamed answer. */
  readonly chunks: number
  /** Pause between two content events (0: written back to back). */
  readonly chunkDelayMs: number
}

interface WireRequest {
  readonly model?: string
  readonly messages?: ReadonlyArray<{ readonly content?: unknown }>
  readonly stream?: boolean
  readonly stream_options?: { readonly include_usage?: boolean }
}

const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.']
const CREATED = 1_700_000_000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const tokensOf = (chars: number) => Math.max(1, Math.ceil(chars / 4))

function promptChars(wire: WireRequest): number {
  let chars = 0
  for (const message of wire.messages ?? []) if (typeof message.content === 'string') chars += message.content.length
  return chars
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) })
  res.end(data)
}

await runChild(async () => {
  const spec = specOf<MockSpec>()
  const pieces = Array.from({ length: Math.max(1, spec.chunks) }, (_, i) => WORDS[i % WORDS.length]!)
  const fullText = pieces.join('')
  let sequence = 0
  let answered = 0

  async function answer(res: ServerResponse, wire: WireRequest): Promise<void> {
    const id = `chatcmpl-mock${++sequence}`
    const model = wire.model ?? 'mock-model'
    const prompt = tokensOf(promptChars(wire))
    const usage = { prompt_tokens: prompt, completion_tokens: pieces.length, total_tokens: prompt + pieces.length }
    if (spec.latencyMs > 0) await sleep(spec.latencyMs)
    if (wire.stream !== true) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: CREATED,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: fullText }, logprobs: null, finish_reason: 'stop' }],
        usage,
      })
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const event = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
    res.write(event({ role: 'assistant', content: '' }, null))
    for (const piece of pieces) {
      if (spec.chunkDelayMs > 0) await sleep(spec.chunkDelayMs)
      if (res.destroyed) return
      res.write(event({ content: piece }, null))
    }
    res.write(event({}, 'stop'))
    if (wire.stream_options?.include_usage === true)
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage })}\n\n`)
    res.end('data: [DONE]\n\n')
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { ok: true })
    if (req.method === 'GET' && path === '/stats') return sendJson(res, 200, { requests: answered })
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      req.resume()
      return sendJson(res, 404, { error: { message: `mock: no route ${req.method} ${path}`, type: 'invalid_request_error' } })
    }
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      let wire: WireRequest
      try {
        wire = JSON.parse(Buffer.concat(parts).toString('utf8')) as WireRequest
      } catch {
        return sendJson(res, 400, { error: { message: 'mock: the body is not JSON', type: 'invalid_request_error' } })
      }
      answered++
      answer(res, wire).catch(() => res.destroy())
    })
  })
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  return listenLoopback(server)
})
