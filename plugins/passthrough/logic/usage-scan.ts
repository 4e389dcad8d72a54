// Reads the usage out of an answer while it passes through, without holding it: a JSON answer is
// kept up to a bound and parsed at its end (past the bound, only its tail is searched, where the
// providers put `usage`); an SSE answer is read event by event and only the events that carry a
// `usage` object are parsed. Anything else reports no usage.
import { StringDecoder } from 'node:string_decoder'
import { readUsage, type SeenUsage } from './usage-fields.ts'

export interface UsageScanner {
  push(chunk: Buffer): void
  /** What was seen; call at the end of the answer, or when it was cut short. */
  finish(): SeenUsage
}

/** The tail of a JSON answer kept once it outgrows the bound: the usage object is in its last bytes. */
const TAIL_BYTES = 64 * 1024

export function usageScanner(contentType: string | undefined, limitBytes: number): UsageScanner {
  const type = (contentType ?? '').toLowerCase()
  if (type.startsWith('text/event-stream')) return sseScanner(limitBytes)
  if (/^application\/(?:[\w.+-]+\+)?json\b/.test(type)) return jsonScanner(limitBytes)
  return { push: () => undefined, finish: () => ({}) }
}

function jsonScanner(limitBytes: number): UsageScanner {
  let chunks: Buffer[] = []
  let size = 0
  let overflowed = false
  return {
    push(chunk) {
      chunks.push(chunk)
      size += chunk.length
      if (size <= limitBytes) return
      overflowed = true
      // Keep whole chunks until the newest ones alone cover the tail.
      while (chunks.length > 1 && size - chunks[0]!.length >= TAIL_BYTES) size -= chunks.shift()!.length
    },
    finish() {
      const text = Buffer.concat(chunks, size).toString('utf8')
      chunks = []
      const seen: SeenUsage = {}
      if (!overflowed) {
        try {
          readUsage(JSON.parse(text), seen)
        } catch {
          // Not JSON after all: no usage to report.
        }
        return seen
      }
      readTail(text, seen)
      return seen
    },
  }
}

/** The last `"usage": {…}` (a flat object) and the last `"model": "…"` of a large JSON answer's tail. */
function readTail(text: string, seen: SeenUsage): void {
  const usages = [...text.matchAll(/"usage"\s*:\s*(\{[^{}]*\})/g)]
  const models = [...text.matchAll(/"model"\s*:\s*("(?:[^"\\]|\\.){1,200}")/g)]
  const answer: Record<string, unknown> = {}
  try {
    if (usages.length > 0) answer['usage'] = JSON.parse(usages.at(-1)![1]!)
    if (models.length > 0) answer['model'] = JSON.parse(models.at(-1)![1]!)
  } catch {
    return
  }
  readUsage(answer, seen)
}

function sseScanner(limitBytes: number): UsageScanner {
  const decoder = new StringDecoder('utf8')
  const seen: SeenUsage = {}
  let line = ''
  /** The current line outgrew the bound: skipped up to its end. */
  let skipping = false
  let data: string[] = []
  let dataSize = 0

  function endLine(text: string): void {
    const content = text.endsWith('\r') ? text.slice(0, -1) : text
    if (content === '') {
      dispatch()
    } else if (content.startsWith('data:')) {
      const value = content.slice(content[5] === ' ' ? 6 : 5)
      dataSize += value.length
      if (dataSize <= limitBytes) data.push(value)
    }
  }

  function dispatch(): void {
    const event = data.join('\n')
    data = []
    dataSize = 0
    // Most events carry text only; parsing them all would cost more than the forwarding.
    if (!event.includes('"usage"')) return
    try {
      readUsage(JSON.parse(event), seen)
    } catch {
      // `[DONE]` or a fragment: nothing to read.
    }
  }

  return {
    push(chunk) {
      const text = decoder.write(chunk)
      let start = 0
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        if (!skipping) endLine(line + text.slice(start, end))
        skipping = false
        line = ''
        start = end + 1
      }
      if (skipping) return
      line += text.slice(start)
      if (line.length > limitBytes) {
        skipping = true
        line = ''
      }
    },
    finish() {
      if (!skipping && line !== '') endLine(line)
      dispatch()
      return seen
    },
  }
}
