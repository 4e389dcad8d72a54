// A provider on 127.0.0.1 (port 0) that speaks the Chat Completions wire format and answers every
// request with the same text, so a test can control what the model "says" independently of the
// prompt. It counts the requests it answered.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'

export interface AnswerUpstream {
  readonly url: string
  readonly requests: () => number
  close(): Promise<void>
}

export async function startAnswerUpstream(answer: string): Promise<AnswerUpstream> {
  let requests = 0
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8')
    })
    req.on('end', () => {
      requests++
      const wire = JSON.parse(raw) as { model: string; stream?: boolean }
      const usage = { prompt_tokens: 10, completion_tokens: 12, total_tokens: 22 }
      if (wire.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ id: 'chatcmpl-fixed', object: 'chat.completion', created: 1_700_000_000, model: wire.model, choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }], usage }))
        return
      }
      const chunk = (body: object) => `data: ${JSON.stringify({ id: 'chatcmpl-fixed', object: 'chat.completion.chunk', created: 1_700_000_000, model: wire.model, ...body })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const half = Math.floor(answer.length / 2)
      res.write(chunk({ choices: [{ index: 0, delta: { content: answer.slice(0, half) }, finish_reason: null }], usage: null }))
      res.write(chunk({ choices: [{ index: 0, delta: { content: answer.slice(half) }, finish_reason: null }], usage: null }))
      res.write(chunk({ choices: [], usage }))
      res.end('data: [DONE]\n\n')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
