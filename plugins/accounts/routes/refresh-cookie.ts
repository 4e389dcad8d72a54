// The dashboard's refresh token, kept where the page's script cannot read it: an HttpOnly cookie
// sent only to the refresh route. A request asks for it with `X-Refresh-Cookie: 1`; a header a
// page of another origin cannot add without a CORS preflight the gateway never grants, so a
// cross-site request cannot use the cookie even where SameSite=Strict would let it through.
import type { IncomingHttpHeaders } from 'node:http'
import { Reply } from '../../../proxy/http/reply.ts'
import type { TokenAnswer } from './session.ts'

const REFRESH_COOKIE = '__Secure-tollgate-refresh'
const REFRESH_COOKIE_PATH = '/api/auth/refresh'
const REFRESH_COOKIE_HEADER = 'x-refresh-cookie'

const ATTRIBUTES = `Path=${REFRESH_COOKIE_PATH}; HttpOnly; Secure; SameSite=Strict`
const NO_STORE = { 'cache-control': 'no-store' }

/** Whether the caller keeps its refresh token in the cookie rather than the answer's body. */
export function wantsRefreshCookie(headers: IncomingHttpHeaders): boolean {
  return headers[REFRESH_COOKIE_HEADER] === '1'
}

/** The refresh token the cookie holds, if the request carries one. */
export function refreshTokenFromCookie(headers: IncomingHttpHeaders): string | undefined {
  for (const pair of (headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=')
    if (at > 0 && pair.slice(0, at).trim() === REFRESH_COOKIE) return pair.slice(at + 1).trim() || undefined
  }
  return undefined
}

/** A token answer: as the spec has it, or with the refresh token moved from the body to the cookie. */
export function tokenReply<T extends TokenAnswer>(headers: IncomingHttpHeaders, answer: T, refreshTokenDays: number): Reply {
  if (!wantsRefreshCookie(headers)) return Reply.json(answer)
  const { refresh_token: token, ...rest } = answer
  return Reply.json(rest, 200, { ...NO_STORE, 'set-cookie': `${REFRESH_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${refreshTokenDays * 86_400}` })
}

export const clearRefreshCookie: Readonly<Record<string, string>> = { ...NO_STORE, 'set-cookie': `${REFRESH_COOKIE}=; ${ATTRIBUTES}; Max-Age=0` }
