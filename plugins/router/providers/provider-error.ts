// Turns a provider's error answer, or an answer that makes no sense, into an UpstreamError whose
// message is safe to show a client.
import { UpstreamError } from '../../../proxy/errors.ts'

const MAX_MESSAGE_CHARS = 300
// Providers sometimes echo a (partly masked) key back in 401 messages.
const KEY_LIKE = /\b(?:sk|pk|key)[-_][\w*.-]{6,}/gi
const TRANSIENT_ERROR_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error'])

/** 429 and 5xx are transient (Anthropic's 529 "overloaded" included); 408 is the provider's own timeout. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500
}

export function providerError(label: string, status: number, bodyText: string, apiKey: string): UpstreamError {
  const detail = parseMessage(bodyText)
  const safe = detail === undefined ? '' : `: ${redact(detail, apiKey)}`
  return new UpstreamError(`${label} answered ${status}${safe}`, isRetryableStatus(status))
}

/** An error reported inside a stream that had started well (Anthropic `error` events, OpenAI error chunks). */
export function streamError(label: string, body: unknown, apiKey: string): UpstreamError {
  const detail = messageOf(body)
  const type = (body as { error?: { type?: unknown } }).error?.type
  const isTransient = typeof type === 'string' && TRANSIENT_ERROR_TYPES.has(type)
  return new UpstreamError(`${label} reported an error in its stream${detail === undefined ? '' : `: ${redact(detail, apiKey)}`}`, isTransient)
}

/** Parses a provider's JSON body or stream event; a provider that sends garbage is not retried. */
export function parseAnswer(label: string, text: string): object {
  let answer: unknown
  try {
    answer = JSON.parse(text)
  } catch {
    answer = undefined
  }
  if (typeof answer !== 'object' || answer === null) throw new UpstreamError(`${label} sent an answer that is not a JSON object.`, false)
  return answer
}

function parseMessage(bodyText: string): string | undefined {
  try {
    return messageOf(JSON.parse(bodyText))
  } catch {
    return undefined
  }
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const { error, message, detail } = body as { error?: unknown; message?: unknown; detail?: unknown }
  // OpenAI and Anthropic: {error: {message}}; Mistral: {message} or {detail: string | [{msg}]}.
  if (typeof error === 'object' && error !== null) return messageOf(error)
  if (typeof error === 'string') return error
  if (typeof message === 'string') return message
  if (typeof detail === 'string') return detail
  if (Array.isArray(detail)) {
    const first: unknown = detail[0]
    if (typeof first === 'object' && first !== null && typeof (first as { msg?: unknown }).msg === 'string') {
      return (first as { msg: string }).msg
    }
  }
  return undefined
}

function redact(text: string, apiKey: string): string {
  const clean = text.replaceAll(apiKey, '[redacted]').replace(KEY_LIKE, '[redacted]')
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}…` : clean
}
