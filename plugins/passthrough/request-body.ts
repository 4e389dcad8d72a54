// A forwarded request's body, and what the gateway reads of it. A JSON body of a POST is read
// whole (within the body limit) before anything is forwarded, so that its model and output limit
// can bound the request's budget hold, and is then forwarded as it came; any other body streams
// to the provider unread.
import { Readable } from 'node:stream'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i

interface RequestBody {
  /** The bytes to forward. */
  readonly stream: Readable
  /** The JSON body read: its value (undefined when it does not parse) and its size in bytes. */
  readonly json?: { readonly value: unknown; readonly bytes: number }
}

function parsedOrUndefined(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    // Forwarded all the same, for the provider to answer.
    return undefined
  }
}

/** Rejects as `body` fails: past the body limit (413), or when the client goes away. */
export async function requestBody(method: string, contentType: string | undefined, body: Readable): Promise<RequestBody> {
  if (method !== 'POST' || !JSON_TYPE.test(contentType ?? '')) return { stream: body }
  const whole = Buffer.concat(await body.toArray())
  return { stream: Readable.from([whole]), json: { value: parsedOrUndefined(whole), bytes: whole.length } }
}
