// A provider's streamed body as batches of events: each read of the body is framed into
// server-sent events (eventsource-parser), which the adapter turns into the gateway's events at
// once, so what one read brought reaches the core as one batch, through one promise.
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser'
import type { ProviderEvent } from '../../../proxy/pipeline/completion.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { UpstreamResponse } from '../../../proxy/pipeline/upstream.ts'

// No text delta comes near this size; refusing to buffer more bounds a broken upstream's cost.
const MAX_EVENT_CHARS = 1_048_576

/** An adapter's reading of one stream: pushes the events each SSE event carries; throws for an error the provider reported. */
interface EventReader {
  onEvent(event: EventSourceMessage, out: ProviderEvent[]): void
  /** The body ended: pushes what only the end tells, or throws when the stream was cut short. */
  onEnd(out: ProviderEvent[]): void
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

class ProviderStream implements AsyncIterableIterator<readonly ProviderEvent[]> {
  readonly #open: () => Promise<UpstreamResponse>
  readonly #label: string
  readonly #reader: EventReader
  readonly #parser: EventSourceParser
  #response: UpstreamResponse | undefined
  #batch: ProviderEvent[] = []
  #isOverflowing = false
  #isDone = false
  /** A failure that came after events of the same read: thrown once those are handed on. */
  #failure: { readonly error: unknown } | undefined

  constructor(open: () => Promise<UpstreamResponse>, label: string, reader: EventReader) {
    this.#open = open
    this.#label = label
    this.#reader = reader
    this.#parser = createParser({
      onEvent: (event) => reader.onEvent(event, this.#batch),
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') this.#isOverflowing = true
      },
      maxBufferSize: MAX_EVENT_CHARS,
    })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  async next(): Promise<IteratorResult<readonly ProviderEvent[], undefined>> {
    if (this.#failure !== undefined) throw this.#failure.error
    if (this.#isDone) return DONE
    try {
      const response = (this.#response ??= await this.#open())
      for (;;) {
        const text = await response.nextText()
        if (text === undefined) {
          this.#isDone = true
          const last: ProviderEvent[] = []
          this.#reader.onEnd(last)
          return last.length === 0 ? DONE : { done: false, value: last }
        }
        this.#parser.feed(text)
        if (this.#isOverflowing) throw new UpstreamError(`${this.#label} sent a stream event larger than ${MAX_EVENT_CHARS} characters.`, false)
        const batch = this.#batch
        if (batch.length > 0) {
          this.#batch = []
          return { done: false, value: batch }
        }
      }
    } catch (err) {
      this.#stop()
      const batch = this.#batch
      if (batch.length === 0) throw err
      this.#failure = { error: err }
      this.#batch = []
      return { done: false, value: batch }
    }
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    this.#stop()
    return DONE
  }

  #stop(): void {
    this.#isDone = true
    this.#response?.stop()
  }
}

/** The stream of the response `open` resolves to (opened at the first read), one batch per read of its body. */
export function eventBatches(open: () => Promise<UpstreamResponse>, label: string, reader: EventReader): AsyncIterableIterator<readonly ProviderEvent[]> {
  return new ProviderStream(open, label, reader)
}
