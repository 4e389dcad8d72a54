// Server-sent events out of a provider's streamed body, with eventsource-parser doing the framing.
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { UpstreamError } from '../../../proxy/errors.ts'
import type { UpstreamResponse } from '../../../proxy/pipeline/upstream.ts'

// No text delta comes near this size; refusing to buffer more bounds a broken upstream's cost.
const MAX_EVENT_CHARS = 1_048_576

export async function* readEvents(response: UpstreamResponse, label: string): AsyncGenerator<EventSourceMessage, void, undefined> {
  const pending: EventSourceMessage[] = []
  let isOverflowing = false
  const parser = createParser({
    onEvent: (event) => { pending.push(event) },
    onError: (err) => { if (err.type === 'max-buffer-size-exceeded') isOverflowing = true },
    maxBufferSize: MAX_EVENT_CHARS,
  })
  try {
    for (let chunk = await response.nextText(); chunk !== undefined; chunk = await response.nextText()) {
      parser.feed(chunk)
      if (isOverflowing) throw new UpstreamError(`${label} sent a stream event larger than ${MAX_EVENT_CHARS} characters.`, false)
      for (let i = 0; i < pending.length; i++) yield pending[i] as EventSourceMessage
      pending.length = 0
    }
  } finally {
    response.stop()
  }
}
