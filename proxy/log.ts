// The process logger. Keys, tokens, secrets and prompt text never reach a log line: the request
// log records only ids, route, status and timings, and these paths are redacted as a backstop.
import { pino, type Logger, type LevelWithSilent } from 'pino'

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

export function createLogger(level: LevelWithSilent, destination?: NodeJS.WritableStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'tollgate' } }
  return destination === undefined ? pino(options) : pino(options, destination)
}

export type { Logger }
