// One provider API endpoint, resolved at setup, and the POST every HTTP adapter makes to it.
import type { Upstream, UpstreamResponse, UpstreamTarget } from '../../../proxy/upstream.ts'
import { providerError } from './provider-error.ts'

export interface Endpoint extends UpstreamTarget {
  /** For redacting the key should a provider echo it in an error message. */
  readonly apiKey: string
}

export function endpointOf(label: string, baseUrl: string, apiPath: string, apiKey: string, headers: Record<string, string>): Endpoint {
  const url = new URL(baseUrl)
  const prefix = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname
  return {
    label,
    origin: url.origin,
    path: `${prefix}${apiPath}`,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    apiKey,
  }
}

/** POSTs the JSON body; a non-2xx answer is read to the end and thrown as UpstreamError. */
export async function postJson(upstream: Upstream, endpoint: Endpoint, body: string, signal: AbortSignal): Promise<UpstreamResponse> {
  const response = await upstream.post(endpoint, body, signal)
  if (response.status >= 200 && response.status < 300) return response
  throw providerError(endpoint.label, response.status, await response.text(), endpoint.apiKey)
}
