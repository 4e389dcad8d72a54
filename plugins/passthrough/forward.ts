// Forwards one request to a provider with http-proxy-3 (its native path: the upstream request is
// destroyed when the client goes away) and passes the answer back chunk by chunk as it comes,
// handing each chunk to a usage scanner on the way. Resolves once the exchange is over, however
// it ended, with what the scanner saw; never rejects.
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import { ProxyServer } from 'http-proxy-3'
import { GatewayError, UpstreamError, UpstreamTimeoutError } from '../../proxy/pipeline/errors.ts'
import type { Exchange, ExchangeEnd } from '../../proxy/http/reply.ts'
import { sendError } from '../../proxy/http/respond.ts'
import { answerHeaders } from './logic/forward-headers.ts'
import type { UsageScanner } from './logic/usage-scan.ts'
import type { SeenUsage } from './logic/usage-fields.ts'

interface ForwardOptions {
  readonly proxyTimeoutMs: number
  readonly connectTimeoutMs: number
  readonly maxSockets: number
}

interface ForwardTarget {
  /** The provider URL, with the client's query. */
  readonly url: URL
  readonly headers: OutgoingHttpHeaders
}

export interface Forwarded {
  readonly end: ExchangeEnd
  readonly seen: SeenUsage
}

interface Forwarder {
  /** `signal`: the request's; aborted by the gateway's shutdown deadline (or the client's leaving), it ends the exchange. */
  forward(exchange: Exchange, target: ForwardTarget, scannerFor: (contentType: string | undefined) => UsageScanner, signal: AbortSignal): Promise<Forwarded>
  close(): void
}

/** What the proxy's events tell one running exchange. */
interface Running {
  upstreamRequest(request: ClientRequest): void
  answer(response: IncomingMessage): void
}

function endOf(status: number): ExchangeEnd {
  return { status, reason: status < 400 ? 'ok' : status >= 500 ? 'upstream_error' : 'client_error' }
}

export function createForwarder(options: ForwardOptions): Forwarder {
  // Without an agent every forward would open and close its own connection.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets }
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) }
  const proxy = new ProxyServer()
  const running = new WeakMap<IncomingMessage, Running>()
  proxy.on('proxyReq', (request, req) => running.get(req)?.upstreamRequest(request))
  proxy.on('proxyRes', (response, req) => running.get(req)?.answer(response))

  return {
    forward({ req, res, body }, target, scannerFor, signal) {
      return new Promise((resolve) => {
        let scanner: UsageScanner | undefined
        let upstream: ClientRequest | undefined
        let timedOut = false
        let done = false
        /** `cut`: the exchange ends early, and so does the upstream request (a finished one keeps its socket for the next). */
        const finish = (end: ExchangeEnd, cut: boolean) => {
          if (done) return
          done = true
          running.delete(req)
          signal.removeEventListener('abort', stop)
          if (cut) upstream?.destroy()
          resolve({ end, seen: scanner?.finish() ?? {} })
        }
        const fail = (error: GatewayError) => {
          if (done) return
          if (res.headersSent) {
            res.destroy()
            return finish({ status: res.statusCode, reason: 'upstream_error' }, true)
          }
          finish({ status: error.status, reason: error.status >= 500 ? 'upstream_error' : 'client_error' }, true)
          sendError(res, error)
        }
        running.set(req, {
          upstreamRequest(request) {
            upstream = request
            request.on('timeout', () => {
              timedOut = true
            })
          },
          answer(response) {
            if (done) return
            const status = response.statusCode ?? 502
            scanner = scannerFor(response.headers['content-type'])
            res.writeHead(
              status,
              answerHeaders(response.headers, (name) => res.hasHeader(name)),
            )
            response.on('data', (chunk: Buffer) => scanner!.push(chunk))
            response.on('close', () => {
              if (!response.complete) fail(new UpstreamError("The provider's answer was cut short.", false))
            })
            res.on('finish', () => finish(endOf(status), false))
            response.pipe(res)
          },
        })
        res.on('close', () => {
          if (!res.writableFinished) finish({ status: 499, reason: 'client_aborted' }, true)
        })
        const stop = () => {
          if (signal.reason instanceof GatewayError) fail(signal.reason)
          else finish({ status: 499, reason: 'client_aborted' }, true)
        }
        if (signal.aborted) return stop()
        signal.addEventListener('abort', stop, { once: true })
        body.on('error', (err) => fail(err instanceof GatewayError ? err : new UpstreamError('The request body could not be read.', false)))
        // The outgoing request is made from these; the gateway has read what it needed of them.
        req.headers = target.headers as IncomingMessage['headers']
        proxy.web(
          req,
          res,
          {
            target: target.url,
            ignorePath: true,
            changeOrigin: true,
            selfHandleResponse: true,
            buffer: body,
            agent: target.url.protocol === 'https:' ? agents.https : agents.http,
            proxyTimeout: options.proxyTimeoutMs,
            connectTimeout: options.connectTimeoutMs,
          },
          (err) => {
            fail(
              timedOut
                ? new UpstreamTimeoutError(`The provider did not answer within ${options.proxyTimeoutMs} ms.`, { cause: err })
                : new UpstreamError('The provider could not be reached.', true, { cause: err }),
            )
          },
        )
      })
    },
    close() {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}
