// The process logger. Keys, tokens, secrets and prompt text never reach a log line: the request
// log records only ids, route, status, timings and routing, every logged error goes through
// logError (its message scrubbed: a provider's message may quote the prompt), and these paths
// are redacted as a backstop.
import { pino, type Logger, type LevelWithSilent } from 'pino'
import { GatewayError, UpstreamError } from './pipeline/errors.ts'
import { scrubLogText } from './kit/scrub-log-text.ts'

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.key',
  '*.password',
  '*.secret',
  '*.token',
  '*.refresh_token',
  '*.access_token',
  '*.messages',
  '*.content',
  '*.prompt',
  '*.text',
]

// Causes are followed this deep: enough for a wrapped network error, bounded for a cycle.
const MAX_CAUSES = 3
const STACK_FRAME = /^\s+at /

/**
 * An error as a log field: its class, status and codes, its scrubbed message, and its stack frames.
 * `requestTexts`: the texts of the request it happened to, whose echoes its messages lose.
 */
export function logError(err: unknown, requestTexts: readonly string[] = [], depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err, message: scrubLogText(String(err), requestTexts) }
  const out: Record<string, unknown> = { type: err.name, message: scrubLogText(err.message, requestTexts) }
  // A GatewayError's own code, or a system error's (ECONNRESET, …).
  const code: unknown = err instanceof GatewayError ? err.code : (err as { code?: unknown }).code
  if (err instanceof GatewayError) out['status'] = err.status
  if (typeof code === 'string') out['code'] = code
  if (err instanceof UpstreamError && err.provider !== undefined) out['provider'] = err.provider
  // The stack's first lines repeat the message; only the frames are kept.
  if (err.stack !== undefined)
    out['stack'] = err.stack
      .split('\n')
      .filter((line) => STACK_FRAME.test(line))
      .join('\n')
  if (err.cause !== undefined && depth < MAX_CAUSES) out['cause'] = logError(err.cause, requestTexts, depth + 1)
  return out
}

export function createLogger(level: LevelWithSilent, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'tollgate' },
    serializers: { err: (err: unknown) => logError(err) },
  }
  return destination === undefined ? pino(options) : pino(options, destination)
}

export type { Logger }
