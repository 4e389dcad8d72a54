// Which shape an error takes, by path: Anthropic's on /v1/messages and below, OpenAI's on the rest
// of /v1/ (also for a path no route matches, so an SDK sees its own error type), the spec's
// elsewhere.
import type { ErrorShape } from '../error-shape.ts'
import { anthropicErrorShape } from './anthropic/errors.ts'
import { openAiErrorShape } from './openai/errors.ts'

export function errorShapeFor(path: string): ErrorShape | undefined {
  if (!path.startsWith('/v1/')) return undefined
  return path === '/v1/messages' || path.startsWith('/v1/messages/') ? anthropicErrorShape : openAiErrorShape
}
