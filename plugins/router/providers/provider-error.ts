// Turns a provider's error answer, or an answer that makes no sense, into an UpstreamError whose
// message is safe to show a client.
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { ResponseHeaders } from '../../../proxy/pipeline/upstream.ts'
import { upstreamErrorOf } from '../logic/upstream-error.ts'

const MAX_MESSAGE_CHARS = 300
// Providers sometimes echo a (partly masked) key back in 401 messages.
const KEY_LIKE = /\b(?:sk|pk|key)[-_][\w*.-]{6,}/gi
const TRANSIENT_ERROR_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error'])

// Longer than any provider asks for; a larger retry-after is taken as this.
const MAX_RETRY_AFTER_MS = 24 * 3600_000

export function providerError(label: string, status: number, bodyText: string, apiKey: string, headers: ResponseHeaders = {}): UpstreamError {
  const detail = describe(parseBody(bodyText))
  const safe = detail.message === undefined ? '' : `: ${redact(detail.message, apiKey)}`
  const retryAfterMs = retryAfterMsOf(headers)
  return upstreamErrorOf(`${label} answered ${status}${safe}`, { status, ...detail.fields, ...(retryAfterMs !== undefined && { retryAfterMs }) })
}

/** The wait a provider asks for: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
function retryAfterMsOf(headers: ResponseHeaders): number | undefined {
  const millis = firstOf(headers['retry-after-ms'])
  if (millis !== undefined && /^\d+(?:\.\d+)?$/.test(millis)) return Math.min(MAX_RETRY_AFTER_MS, Math.ceil(Number(millis)))
  const after = firstOf(headers['retry-after'])
  if (after === undefined) return undefined
  if (/^\d+(?:\.\d+)?$/.test(after)) return Math.min(MAX_RETRY_AFTER_MS, Math.ceil(Number(after) * 1000))
  // An HTTP date names its day and month; Date.parse alone would take '-3' for a year.
  const at = /^[A-Za-z]{3}, /.test(after) ? Date.parse(after) : Number.NaN
  return Number.isNaN(at) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - Date.now()))
}

function firstOf(value: string | readonly string[] | undefined): string | undefined {
  return (typeof value === 'string' ? value : value?.[0])?.trim()
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
  /** The error's type, code and param, when they look like identifiers (a free text could quote the prompt). */
  readonly fields: { type?: string; code?: string; param?: string }
}

const IDENTIFIER = /^[\w.:-]{1,64}$/
// A request field as providers name it, e.g. `messages[0].content`.
const FIELD_PATH = /^[\w.[\]-]{1,128}$/

function identifier(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && IDENTIFIER.test(text) ? text : undefined
}

function describe(body: unknown): ErrorDetail {
  if (typeof body !== 'object' || body === null) return { message: undefined, fields: {} }
  const { error, message, detail, type, code, param } = body as {
    error?: unknown
    message?: unknown
    detail?: unknown
    type?: unknown
    code?: unknown
    param?: unknown
  }
  // OpenAI and Anthropic: {error: {message, type, code, param}}; Mistral: {message, type, code, param} or {detail: string | [{msg, type}]}.
  if (typeof error === 'object' && error !== null) return describe(error)
  const fields: { type?: string; code?: string; param?: string } = {}
  const typeId = identifier(type)
  const codeId = identifier(code)
  if (typeId !== undefined && typeId !== 'error') fields.type = typeId
  if (codeId !== undefined) fields.code = codeId
  if (typeof param === 'string' && FIELD_PATH.test(param)) fields.param = param
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
