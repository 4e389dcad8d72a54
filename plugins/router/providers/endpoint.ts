// One provider API endpoint, resolved at setup, and the POST every HTTP adapter makes to it.
import type { Upstream, UpstreamResponse, UpstreamTarget } from '../../../proxy/pipeline/upstream.ts'
import { providerError } from './provider-error.ts'

export interface Endpoint extends UpstreamTarget {
  /** For redacting the key should a provider echo it in an error message. */
  readonly apiKey: string
}

/**
 * `apiPath` appended to the base URL's path. A base URL that already ends in the API's version
 * segment (`https://api.openai.com/v1`, the form the providers' own SDKs document) names the same
 * API as one without it, so the segment is not repeated.
 */
export function endpointOf(label: string, baseUrl: string, apiPath: string, apiKey: string, headers: Record<string, string>): Endpoint {
  const url = new URL(baseUrl)
  let prefix = url.pathname.replace(/\/+$/, '')
  const version = /^\/v\d+\//.exec(apiPath)?.[0].slice(0, -1)
  if (version !== undefined && prefix.endsWith(version)) prefix = prefix.slice(0, -version.length)
  return {
    label,
    origin: url.origin,
    path: `${prefix}${apiPath}`,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    apiKey,
  }
}

/** The full URL an endpoint posts to, for the log at start. */
export function urlOf(endpoint: Endpoint): string {
  return `${endpoint.origin}${endpoint.path}`
}

/** POSTs the JSON body; a non-2xx answer is read to the end and thrown as UpstreamError. */
export async function postJson(
  upstream: Upstream,
  endpoint: Endpoint,
  body: string,
  signal: AbortSignal,
  traceHeaders: Readonly<Record<string, string>> | undefined,
): Promise<UpstreamResponse> {
  const response = await upstream.post(endpoint, body, signal, traceHeaders)
  if (response.status >= 200 && response.status < 300) return response
  throw providerError(endpoint.label, response.status, await response.text(), endpoint.apiKey, response.headers)
}
