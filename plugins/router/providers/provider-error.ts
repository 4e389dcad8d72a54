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

export function providerError(label: string, status: number, bodyText: string, apiKey: string, retryAfter?: string): UpstreamError {
  const detail = describe(parseBody(bodyText))
  const safe = detail.message === undefined ? '' : `: ${redact(detail.message, apiKey)}`
  const retryAfterS = secondsOf(retryAfter)
  const provider = retryAfterS === undefined ? { status, ...detail.fields } : { status, ...detail.fields, retryAfterS }
  return new UpstreamError(`${label} answered ${status}${safe}`, isRetryableStatus(status), { provider })
}

/** A retry-after in seconds, the form the providers send; an HTTP date is not read. */
function secondsOf(retryAfter: string | undefined): number | undefined {
  const text = retryAfter?.trim()
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined
}

/** An error reported inside a stream that had started well (Anthropic `error` events, OpenAI error chunks). */
export function streamError(label: string, body: unknown, apiKey: string): UpstreamError {
  const detail = describe(body)
  const isTransient = detail.fields.type !== undefined && TRANSIENT_ERROR_TYPES.has(detail.fields.type)
  const safe = detail.message === undefined ? '' : `: ${redact(detail.message, apiKey)}`
  return new UpstreamError(`${label} reported an error in its stream${safe}`, isTransient, { provider: detail.fields })
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

function parseBody(bodyText: string): unknown {
  try {
    return JSON.parse(bodyText)
  } catch {
    return undefined
  }
}

interface ErrorDetail {
  readonly message: string | undefined
  /** The error's type and code, when they look like identifiers (a free text could quote the prompt). */
  readonly fields: { type?: string; code?: string }
}

const IDENTIFIER = /^[\w.:-]{1,64}$/

function identifier(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && IDENTIFIER.test(text) ? text : undefined
}

function describe(body: unknown): ErrorDetail {
  if (typeof body !== 'object' || body === null) return { message: undefined, fields: {} }
  const { error, message, detail, type, code } = body as { error?: unknown; message?: unknown; detail?: unknown; type?: unknown; code?: unknown }
  // OpenAI and Anthropic: {error: {message, type, code}}; Mistral: {message, type, code} or {detail: string | [{msg, type}]}.
  if (typeof error === 'object' && error !== null) return describe(error)
  const fields: { type?: string; code?: string } = {}
  const typeId = identifier(type)
  const codeId = identifier(code)
  if (typeId !== undefined && typeId !== 'error') fields.type = typeId
  if (codeId !== undefined) fields.code = codeId
  if (typeof error === 'string') return { message: error, fields }
  if (typeof message === 'string') return { message, fields }
  if (typeof detail === 'string') return { message: detail, fields }
  if (Array.isArray(detail)) {
    const first: unknown = detail[0]
    if (typeof first === 'object' && first !== null && typeof (first as { msg?: unknown }).msg === 'string') {
      const firstType = identifier((first as { type?: unknown }).type)
      return { message: (first as { msg: string }).msg, fields: firstType === undefined ? fields : { ...fields, type: firstType } }
    }
  }
  return { message: undefined, fields }
}

function redact(text: string, apiKey: string): string {
  const clean = text.replaceAll(apiKey, '[redacted]').replace(KEY_LIKE, '[redacted]')
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}…` : clean
}
