// Child entry: the spec floor, the least any gateway of this spec does for one answer, and no more.
// It is a yardstick for the stage table, not a baseline: it keeps no promise. Per request it reads
// the body into one Buffer, parses it and checks its two fields, writes the provider's request,
// sends it through an undici Pool's dispatch with a handler that collects bytes (as Tollgate's
// upstream does), parses the provider's answer, prices it from one table entry, and writes the
// spec's answer with the spec's headers: on /api/ai/complete one JSON body, on /api/ai/chat a
// `delta` event per piece of text, the `done` event and the late headers as trailers. No key is
// checked, nothing is stored, counted, limited, logged or measured.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Pool, type Dispatcher } from 'undici'
import { OPENAI_HEADERS } from '../payload.ts'
import { bodyServer } from './body-server.ts'
import { listenLoopback, runChild, specOf } from './lifecycle.ts'

export interface SpecFloorSpec {
  readonly upstreamUrl: string
  /** Sockets to the upstream: the gateway's own provider pool size in the same lane. */
  readonly connections: number
}

// gpt-4o-mini's list prices, dollars per million tokens.
const PRICE = { input: 0.15, output: 0.6 }

const LATE = 'x-gateway-completion-tokens, x-credits-charged'

interface Usage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
}

interface Wire {
  readonly choices?: ReadonlyArray<{ readonly message?: { readonly content?: string }; readonly delta?: { readonly content?: string } }>
  readonly usage?: Usage
}

function costCents(usage: Usage): number {
  const dollars = (usage.prompt_tokens * PRICE.input + usage.completion_tokens * PRICE.output) / 1e6
  return Math.round(dollars * 100 * 1e4) / 1e4
}

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = JSON.stringify({ error: { code: status === 400 ? 'bad_request' : 'upstream_error', message } })
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

interface CollectorEvents {
  start(status: number): void
  text(piece: string): void
  end(): void
  error(err: Error): void
}

/** Hands each piece of the provider's body to `onText`, then calls `onEnd`, or `onError`. */
class Collector implements Dispatcher.DispatchHandler {
  status = 0
  readonly #on: CollectorEvents

  constructor(on: CollectorEvents) {
    this.#on = on
  }

  onRequestStart(): void {}

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode
    this.#on.start(statusCode)
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#on.text(chunk.toString('utf8'))
  }

  onResponseEnd(): void {
    this.#on.end()
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.#on.error(err)
  }
}

await runChild(async () => {
  const spec = specOf<SpecFloorSpec>()
  const pool = new Pool(spec.upstreamUrl, { connections: spec.connections })

  function answer(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    let body: { model?: unknown; messages?: unknown }
    try {
      body = JSON.parse(raw.toString('utf8'))
    } catch {
      fail(res, 400, 'the body is not JSON')
      return
    }
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      fail(res, 400, 'model and messages are required')
      return
    }
    const stream = req.url === '/api/ai/chat'
    const upstreamBody = JSON.stringify({
      model: body.model,
      messages: body.messages,
      temperature: 0.7,
      max_completion_tokens: 1000,
      stream,
      ...(stream && { stream_options: { include_usage: true } }),
    })
    const requestId = randomUUID()
    const model = `openai/${body.model}`
    let text = ''
    let usage: Usage | undefined
    let line = ''
    // The frames of one read of the provider's body, written together.
    let out = ''
    const onEvent = (data: string) => {
      if (data === '[DONE]') return
      const chunk = JSON.parse(data) as Wire
      const delta = chunk.choices?.[0]?.delta?.content
      if (typeof delta === 'string' && delta !== '') out += `event: delta\ndata: {"text":${JSON.stringify(delta)}}\n\n`
      if (chunk.usage !== undefined) usage = chunk.usage
    }
    const handler = new Collector({
      start(status) {
        if (status !== 200 || !stream) return
        res.writeHead(200, {
          'x-request-id': requestId,
          'x-gateway-model': model,
          'x-cache-status': 'MISS',
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          trailer: LATE,
        })
      },
      text(piece) {
        if (!stream) {
          text += piece
          return
        }
        line += piece
        for (let end = line.indexOf('\n\n'); end >= 0; end = line.indexOf('\n\n')) {
          const event = line.slice(0, end)
          line = line.slice(end + 2)
          if (event.startsWith('data: ')) onEvent(event.slice(6))
        }
        if (out !== '') res.write(out)
        out = ''
      },
      end() {
        if (handler.status !== 200) return fail(res, 502, 'the provider failed')
        if (stream) {
          const figures = usage ?? { prompt_tokens: 0, completion_tokens: 0 }
          const cents = costCents(figures)
          const done = {
            provider: 'openai',
            model: body.model,
            cacheHit: false,
            usage: {
              promptTokens: figures.prompt_tokens,
              completionTokens: figures.completion_tokens,
              totalTokens: figures.prompt_tokens + figures.completion_tokens,
              costCents: cents,
            },
          }
          res.addTrailers({ 'x-gateway-completion-tokens': String(figures.completion_tokens), 'x-credits-charged': (cents / 100).toFixed(6) })
          res.end(`event: done\ndata: ${JSON.stringify(done)}\n\n`)
          return
        }
        const wire = JSON.parse(text) as Wire
        const content = wire.choices?.[0]?.message?.content
        if (typeof content !== 'string' || wire.usage === undefined) return fail(res, 502, 'the provider sent no text')
        const cents = costCents(wire.usage)
        const out = JSON.stringify({
          text: content,
          provider: 'openai',
          model: body.model,
          cacheHit: false,
          usage: {
            promptTokens: wire.usage.prompt_tokens,
            completionTokens: wire.usage.completion_tokens,
            totalTokens: wire.usage.prompt_tokens + wire.usage.completion_tokens,
            costCents: cents,
          },
        })
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(out),
          'x-request-id': requestId,
          'x-gateway-model': model,
          'x-gateway-prompt-tokens': String(wire.usage.prompt_tokens),
          'x-cache-status': 'MISS',
          'x-gateway-completion-tokens': String(wire.usage.completion_tokens),
          'x-credits-charged': (cents / 100).toFixed(6),
        })
        res.end(out)
      },
      error: () => fail(res, 502, 'the provider failed'),
    })
    pool.dispatch({ method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: upstreamBody }, handler)
  }

  const server = bodyServer((req, res, body) => answer(req, res, body ?? Buffer.alloc(0)))
  return listenLoopback(server, () => pool.destroy())
})
