// How a plugin ends a stream that has begun: its onStreamChunk or onStreamEnd hook throws a
// StreamStop. The status and the text sent so far cannot be taken back; what the stop decides is
// that nothing more goes out.
import type { GatewayError } from './errors.ts'

/**
 * The core stops the model call at once, waits for `error` (so the plugin can first commit what
 * the stop means, e.g. its records) and ends the stream with that error as its `error` event.
 */
export class StreamStop extends Error {
  readonly error: Promise<GatewayError>

  constructor(error: GatewayError | Promise<GatewayError>) {
    super('a plugin stopped the stream')
    this.name = 'StreamStop'
    this.error = Promise.resolve(error)
    // Awaited by the core; this keeps a rejection from being reported as unhandled meanwhile.
    this.error.catch(() => undefined)
  }
}
