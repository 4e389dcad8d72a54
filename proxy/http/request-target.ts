// The path and query of a request line. The WHATWG URL parser costs about 1.5 µs a request; a
// plain path (the common case) is split by hand, and anything the parser would rewrite (dot
// segments, percent escapes, backslashes, fragments, odd characters) still goes through it.
// Not `//…`, which the parser reads as a host.
const PLAIN_PATH = /^\/(?!\/)[\w.~/-]*$/
// Printable ASCII but `#`: the parser re-encodes anything else (spaces, non-ASCII) in a query.
const PLAIN_QUERY = /^[\x21-\x22\x24-\x7e]*$/
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/
const BASE = 'http://gateway'

interface RequestTarget {
  readonly path: string
  readonly query: URLSearchParams
}

export function requestTarget(raw: string): RequestTarget {
  const mark = raw.indexOf('?')
  const path = mark === -1 ? raw : raw.slice(0, mark)
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && (mark === -1 || PLAIN_QUERY.test(raw.slice(mark + 1)))) {
    // From the `?` on: URLSearchParams drops one leading `?`, as the parser does with the query.
    return { path, query: new URLSearchParams(mark === -1 ? '' : raw.slice(mark)) }
  }
  // A target the parser rejects (`//`, `//:x`) names no endpoint: it is answered 404, never thrown.
  if (!URL.canParse(raw, BASE)) return { path: raw, query: new URLSearchParams() }
  const url = new URL(raw, BASE)
  return { path: url.pathname, query: url.searchParams }
}
