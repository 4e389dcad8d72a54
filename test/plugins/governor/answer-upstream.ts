// A provider on 127.0.0.1 (port 0) that speaks the Chat Completions wire format and answers every
// request with the same text, so a test can control what the model "says" independently of the
// prompt. A stream sends the text in two halves, or in the pieces given, `gapMs` apart, then the
// tool call given, if any; a JSON answer carries the same call whole. It counts the requests it
// answered and the streams whose client went away before the end.
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'

export interface AnswerUpstream {
  readonly url: string
  readonly requests: () => number
  /** Streams closed by the gateway before their last event. */
  readonly aborted: () => number
  /** Resolves once a stream has been aborted. */
  whenAborted(): Promise<void>
  close(): Promise<void>
}

export interface AnswerOptions {
  /** Pause before every streamed piece after the first. Default 0. */
  readonly gapMs?: number
  /** A tool call streamed after the text: its start, then its arguments in `pieces`, `gapMs` apart (whole in a JSON answer). */
  readonly toolCall?: { readonly id: string; readonly name: string; readonly pieces: readonly string[] }
  /** Awaited before a stream's finish, so a test can see what the client got before the model was done. */
  readonly beforeEnd?: () => Promise<void>
}

const USAGE = { prompt_tokens: 10, completion_tokens: 12, total_tokens: 22 }

export async function startAnswerUpstream(answer: string | readonly string[], options: AnswerOptions = {}): Promise<AnswerUpstream> {
  const text = typeof answer === 'string' ? answer : answer.join('')
  const pieces = typeof answer === 'string' ? [answer.slice(0, Math.floor(answer.length / 2)), answer.slice(Math.floor(answer.length / 2))] : answer
  let requests = 0
  let aborted = 0
  const abortWaiters: Array<() => void> = []

  async function stream(res: ServerResponse, model: string): Promise<void> {
    const chunk = (body: object) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fixed', object: 'chat.completion.chunk', created: 1_700_000_000, model, ...body })}\n\n`
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const [index, piece] of pieces.entries()) {
      if (index > 0 && options.gapMs !== undefined) await sleep(options.gapMs)
      if (res.destroyed) return
      res.write(chunk({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }], usage: null }))
    }
    const { toolCall } = options
    if (toolCall !== undefined) {
      const call = (delta: object) => chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...delta }] }, finish_reason: null }], usage: null })
      res.write(call({ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }))
      for (const piece of toolCall.pieces) {
        if (options.gapMs !== undefined) await sleep(options.gapMs)
        if (res.destroyed) return
        res.write(call({ function: { arguments: piece } }))
      }
    }
    await options.beforeEnd?.()
    if (res.destroyed) return
    if (toolCall !== undefined) res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: null }))
    res.write(chunk({ choices: [], usage: USAGE }))
    res.end('data: [DONE]\n\n')
  }

  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8')
    })
    req.on('end', () => {
      requests++
      const wire = JSON.parse(raw) as { model: string; stream?: boolean }
      if (wire.stream !== true) {
        const { toolCall } = options
        const message =
          toolCall === undefined
            ? { role: 'assistant', content: text }
            : {
                role: 'assistant',
                content: text,
                tool_calls: [{ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.pieces.join('') } }],
              }
        const choice = { index: 0, message, finish_reason: toolCall === undefined ? 'stop' : 'tool_calls' }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ id: 'chatcmpl-fixed', object: 'chat.completion', created: 1_700_000_000, model: wire.model, choices: [choice], usage: USAGE }))
        return
      }
      res.on('close', () => {
        if (res.writableFinished) return
        aborted++
        for (const wake of abortWaiters.splice(0)) wake()
      })
      void stream(res, wire.model)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    aborted: () => aborted,
    whenAborted: () => (aborted > 0 ? Promise.resolve() : new Promise<void>((resolve) => abortWaiters.push(resolve))),
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
