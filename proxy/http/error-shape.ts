// How an error is written for one kind of client. The spec's own endpoints use the gateway's
// body; a client dialect writes the same error (same status, same text) in its own shape.
import type { GatewayError } from '../pipeline/errors.ts'

export interface ErrorShape {
  body(error: GatewayError): unknown
  /** The body's JSON Schema, for /openapi.json. */
  readonly schema: Readonly<Record<string, unknown>>
}
