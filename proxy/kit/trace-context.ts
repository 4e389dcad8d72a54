// W3C Trace Context (https://www.w3.org/TR/trace-context/): reading an incoming `traceparent`
// and `tracestate`, and writing the `traceparent` the provider call carries. A header that breaks
// the rules is ignored as if absent, never repaired or echoed.
import type { IncomingHttpHeaders } from 'node:http'
import { randomBytes } from 'node:crypto'

export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  readonly parentId: string
  /** The trace flags as two hex digits; bit 0 is "sampled". */
  readonly flags: string
  /** The incoming `tracestate`, passed on as it came. */
  readonly tracestate?: string
}

// Version 00 only: its exact form, lowercase hex as the spec requires.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const ZERO_TRACE_ID = '0'.repeat(32)
const ZERO_SPAN_ID = '0'.repeat(16)
/** The spec's floor for what a vendor must pass on; longer or unprintable lists are dropped. */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/

/** The request's valid `traceparent` (with its `tracestate`), or undefined. */
export function traceParentOf(headers: IncomingHttpHeaders): TraceParent | undefined {
  const header = headers.traceparent
  if (typeof header !== 'string') return undefined
  const match = TRACEPARENT.exec(header)
  if (match === null) return undefined
  const [, traceId, parentId, flags] = match as unknown as [string, string, string, string]
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined
  const state = headers.tracestate
  return typeof state === 'string' && TRACESTATE.test(state) ? { traceId, parentId, flags, tracestate: state } : { traceId, parentId, flags }
}

/** A new span id: 16 hex digits, never all zero. */
export function newSpanId(): string {
  let id = randomBytes(8).toString('hex')
  while (id === ZERO_SPAN_ID) id = randomBytes(8).toString('hex')
  return id
}

/** The headers that continue `trace` in a call made from span `spanId`. */
export function traceHeadersOf(traceId: string, spanId: string, flags: string, tracestate: string | undefined): Record<string, string> {
  const traceparent = `00-${traceId}-${spanId}-${flags}`
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate }
}
