// Which shape an error takes, by path: Anthropic's on /v1/messages and below, OpenAI's on the rest
// of /v1/ (also for a path no route matches, so an SDK sees its own error type), the spec's
// elsewhere. And the 404 for a dialect's path sent without its /v1.
import type { ErrorShape } from '../../http/error-shape.ts'
import type { RouteTable } from '../../http/routes.ts'
import { anthropicErrorShape } from './anthropic/errors.ts'
import { openAiErrorShape } from './openai/errors.ts'

export function errorShapeFor(path: string): ErrorShape | undefined {
  if (!path.startsWith('/v1/')) return undefined
  return path === '/v1/messages' || path.startsWith('/v1/messages/') ? anthropicErrorShape : openAiErrorShape
}

/**
 * The 404's message. An SDK whose base URL lacks `/v1` asks for `/chat/completions`; the message
 * says where the route is and which base URL to set.
 */
export function notFoundMessage(routes: RouteTable, method: string, path: string): string {
  const found = path.startsWith('/v1/') ? undefined : routes.find(method, `/v1${path}`)
  if (found === undefined || !('route' in found)) return `No endpoint at ${method} ${path}.`
  return `No endpoint at ${method} ${path}; it is at /v1${path}. Give the SDK a base URL that ends in /v1 (OpenAI) or the gateway's root (Anthropic).`
}
