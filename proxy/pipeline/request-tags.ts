// The x-gateway-tags header: labels a client puts on a request so that its spend can be reported
// by them (GET /api/usage?by=tag). Read on every AI route, whatever its dialect, since an SDK adds
// a header more easily than a body field. Bounded in count and length and limited to a plain
// alphabet: tags become keys of stored aggregates and lines of a report.
import type { IncomingHttpHeaders } from 'node:http'
import { InvalidRequestError } from './errors.ts'

const TAGS_HEADER = 'x-gateway-tags'
export const MAX_TAGS = 10
export const MAX_TAG_LENGTH = 64

const TAG = /^[A-Za-z0-9_.:=@/+-]+$/

/** The request's tags, each once, in the order given; undefined without the header. Throws a 400 for a value it refuses. */
export function tagsOf(headers: IncomingHttpHeaders): readonly string[] | undefined {
  const header = headers[TAGS_HEADER]
  if (header === undefined) return undefined
  // Node joins a repeated header with ", ": one list either way.
  const value = Array.isArray(header) ? header.join(',') : header
  if (value.length > MAX_TAGS * (MAX_TAG_LENGTH + 2))
    refuse(`${TAGS_HEADER} is too long: at most ${MAX_TAGS} tags of at most ${MAX_TAG_LENGTH} characters each.`)
  const tags = new Set<string>()
  for (const part of value.split(',')) {
    const tag = part.trim()
    if (tag === '') continue
    if (tag.length > MAX_TAG_LENGTH) refuse(`Each tag in ${TAGS_HEADER} may have at most ${MAX_TAG_LENGTH} characters.`)
    if (!TAG.test(tag)) refuse(`Tags in ${TAGS_HEADER} are comma-separated and may hold only letters, digits and _ . : = @ / + -`)
    tags.add(tag)
  }
  if (tags.size > MAX_TAGS) refuse(`${TAGS_HEADER} may carry at most ${MAX_TAGS} tags.`)
  return tags.size === 0 ? undefined : [...tags]
}

function refuse(message: string): never {
  throw new InvalidRequestError(`Invalid request: ${TAGS_HEADER} header`, message, [{ path: TAGS_HEADER, message }])
}
