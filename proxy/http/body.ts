// Reading and parsing request bodies with the limits a public endpoint needs: a size cap, a
// nesting cap (JSON.stringify and structuredClone throw on very deep values) and no
// `__proto__` keys, which would turn into prototype writes wherever the body is spread.
import type { IncomingMessage } from 'node:http'
import { Transform, type Readable } from 'node:stream'
import { InvalidRequestError, PayloadTooLargeError } from '../pipeline/errors.ts'

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (declared > limitBytes) return Promise.reject(new PayloadTooLargeError(limitBytes))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) {
        req.removeAllListeners('data')
        req.resume()
        reject(new PayloadTooLargeError(limitBytes))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    req.on('error', reject)
  })
}

/**
 * The body as it arrives, for a handler that streams it on unread: it fails with
 * PayloadTooLargeError once more than `limitBytes` came (a declared length above it is refused
 * before the handler runs).
 */
export function limitedBody(req: IncomingMessage, limitBytes: number): Readable {
  let size = 0
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > limitBytes) done(new PayloadTooLargeError(limitBytes))
      else done(null, chunk)
    },
  })
  req.on('error', (err) => limited.destroy(err))
  return req.pipe(limited)
}

/** Nesting depth of a JSON text, counted outside strings; stops counting past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) {
      inString = true
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--
    }
  }
  return max
}

/**
 * Whether `text` holds at most `limit` opening brackets, strings included: then it cannot nest
 * deeper than `limit`, and the scan of jsonDepth is not needed. Searched natively, not char by char.
 */
function fewBrackets(text: string, limit: number): boolean {
  let count = 0
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++count > limit) return false
    }
  }
  return true
}

function rejectProto(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new InvalidRequestError('Invalid JSON body', 'Keys named __proto__ are not accepted.')
  return value
}

export function parseJsonBody(raw: Buffer, maxDepth: number): unknown {
  const text = raw.toString('utf8')
  if (text.trim() === '') throw new InvalidRequestError('Missing request body', 'Send a JSON object as the request body.')
  if (!fewBrackets(text, maxDepth) && jsonDepth(text, maxDepth) > maxDepth) {
    throw new InvalidRequestError('Invalid JSON body', `The body nests deeper than ${maxDepth} levels.`)
  }
  // The reviver is only paid for when the key could be present (directly or \u-escaped).
  const suspicious = text.includes('__proto__') || text.includes('\\u')
  try {
    return suspicious ? JSON.parse(text, rejectProto) : JSON.parse(text)
  } catch (err) {
    if (err instanceof InvalidRequestError) throw err
    throw new InvalidRequestError('Malformed JSON', `The body is not valid JSON: ${(err as Error).message}`)
  }
}
