// The headers of a forwarded request and of its answer. Going out: the client's headers but its
// credentials (the gateway key, and any provider key it sent), the hop-by-hop ones and those the
// gateway reads itself (x-gateway-*, x-governor-*: tags and compliance metadata are the client's
// business with the gateway, not the provider's), plus the
// gateway's own provider credential; the answer is asked for uncompressed, so that its usage can
// be read on the way. Coming back: the provider's headers but the hop-by-hop ones, its cookies,
// and the names the gateway sets itself (x-request-id, the rate-limit headers), which win.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http'

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]
/** Credentials (the gateway's key travels in the first two) and what ties a request to the client's own provider account. */
const CLIENT_CREDENTIALS = ['authorization', 'x-api-key', 'api-key', 'openai-organization', 'openai-project', 'cookie']
/** Set by the gateway or by the connection to the provider (the client's `expect` was answered by the gateway's server). */
const OUTGOING_OWN = ['host', 'expect', 'accept-encoding']

/** Request headers addressed to the gateway itself, which no provider is sent. */
const isGatewayOwn = (name: string) => name.startsWith('x-gateway-') || name.startsWith('x-governor-')

/** The names the Connection header lists are hop-by-hop too. */
function connectionListed(headers: IncomingHttpHeaders): string[] {
  const connection = headers.connection
  return typeof connection === 'string'
    ? connection
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== '')
    : []
}

export function outgoingHeaders(
  incoming: IncomingHttpHeaders,
  credential: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
): OutgoingHttpHeaders {
  const dropped = new Set([...HOP_BY_HOP, ...CLIENT_CREDENTIALS, ...OUTGOING_OWN, ...connectionListed(incoming)])
  const headers: OutgoingHttpHeaders = { ...defaults }
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !dropped.has(name) && !isGatewayOwn(name)) headers[name] = value
  }
  headers['accept-encoding'] = 'identity'
  return { ...headers, ...credential }
}

/** The provider's answer headers to pass on; `own` are the names already set on the response. */
export function answerHeaders(upstream: IncomingHttpHeaders, own: (name: string) => boolean): OutgoingHttpHeaders {
  const dropped = new Set([...HOP_BY_HOP, 'set-cookie', ...connectionListed(upstream)])
  const headers: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || dropped.has(name)) continue
    if (name === 'x-request-id') headers['x-upstream-request-id'] = value
    else if (!own(name)) headers[name] = value
  }
  return headers
}
