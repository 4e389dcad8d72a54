// The base of the links mailed to users. With publicUrl configured, that. Without it, the plugin
// cannot know its own address at setup (the port may be 0), so the request's Host header is used,
// but only when it names this machine: a link built from an arbitrary Host would let anyone have
// a victim's sign-in link point to their own server. Other hosts need publicUrl (PUBLIC_AUTH_URL).
import type { IncomingHttpHeaders } from 'node:http'

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i

/** Undefined when no trustworthy base is known for this request. */
export function linkBase(publicUrl: string | undefined, headers: IncomingHttpHeaders): string | undefined {
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '')
  const host = headers.host
  return host !== undefined && LOOPBACK_HOST.test(host) ? `http://${host}` : undefined
}
