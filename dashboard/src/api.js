// The management API client. The access token lives in this module's memory only (never in web
// storage); the refresh token lives in an HttpOnly cookie that this script cannot read and that the
// browser sends only to the refresh route, so a reload or a new tab signs in again from it. API
// requests carry the access token as a bearer header and no cookie. The access token is renewed
// before it expires, and once after a 401; renewals never overlap, not even across tabs (a Web
// Lock), since the API treats a refresh token presented twice as stolen and ends the session.

const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000
/** Asks the account routes to keep the refresh token in the cookie rather than in the answer. */
const REFRESH_COOKIE = { 'x-refresh-cookie': '1' }
const RENEWAL_LOCK = 'tollgate-refresh'

let session = null
let renewal = null
let renewTimer = 0
const listeners = new Set()

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || body?.error || `The server answered ${status}.`)
    this.status = status
    this.body = body
  }
}

/** `withCookie`: the account routes that set, read or clear the refresh cookie. */
async function send(method, path, body, accessToken, withCookie = false) {
  const headers = { accept: 'application/json', ...(withCookie ? REFRESH_COOKIE : {}) }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`
  let res
  try {
    res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: withCookie ? 'same-origin' : 'omit', cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, { error: 'Network error', message: 'The gateway could not be reached. Check your connection and try again.' })
  }
  const data = await res.json().catch(() => null)
  if (!res.ok) throw new ApiError(res.status, data)
  return data
}

function notify() {
  for (const listener of listeners) listener(session)
}

function begin(tokens, user) {
  clearTimeout(renewTimer)
  session = { accessToken: tokens.access_token, user: user ?? tokens.user ?? session?.user }
  const renewInMs = Math.max(10_000, tokens.expires_in * 1000 - RENEW_BEFORE_EXPIRY_MS)
  renewTimer = setTimeout(() => renew().catch(() => {}), renewInMs)
}

function end() {
  clearTimeout(renewTimer)
  session = null
  renewal = null
  notify()
}

/** The refresh cookie exchanged for new tokens, by one tab at a time. */
function refresh() {
  const exchange = () => send('POST', '/api/auth/refresh', {}, undefined, true)
  return navigator.locks === undefined ? exchange() : navigator.locks.request(RENEWAL_LOCK, exchange)
}

/** Renews the tokens, once at a time. */
function renew() {
  if (session === null) return Promise.reject(new ApiError(401, { error: 'Unauthorized', message: 'Sign in again.' }))
  renewal ??= refresh()
    .then((tokens) => begin(tokens))
    .catch((err) => {
      end()
      throw err
    })
    .finally(() => {
      renewal = null
    })
  return renewal
}

export function onSessionChange(listener) {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function currentSession() {
  return session
}

/** A login answer (password, magic link or invitation) starts the session. */
export function startSession(answer) {
  const replaced = session
  begin(answer, answer.user)
  notify()
  // A link that signs in over a session ends the old one on the server; without the cookie, so
  // the answer cannot clear the new session's.
  if (replaced !== null) send('POST', '/api/auth/logout', {}, replaced.accessToken).catch(() => {})
}

/**
 * A page that opens (a reload, a new tab) picks up the session its refresh cookie holds, if any;
 * signed out, it simply finds none.
 */
export async function resumeSession() {
  try {
    const tokens = await refresh()
    if (session === null) {
      begin(tokens)
      notify()
    }
  } catch {
    // No cookie, or one whose session ended: the sign-in page shows.
  }
}

/**
 * Ends the session on the server, which clears the refresh cookie, for every tab at once. The
 * logout needs a live access token (the cookie goes to the refresh route only): one that expired
 * while the computer slept is renewed first, or the cookie would sign the next page in again.
 */
export async function signOut() {
  if (session === null) return
  const logout = () => send('POST', '/api/auth/logout', {}, session.accessToken, true)
  try {
    await logout()
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) await renew().then(logout).catch(() => {})
  }
  end()
}

/** A request for the signed-in member; one 401 renews the access token and tries again. */
export async function api(method, path, body) {
  if (renewal !== null) await renewal.catch(() => {})
  if (session === null) throw new ApiError(401, { error: 'Unauthorized', message: 'Sign in first.' })
  const used = session.accessToken
  try {
    return await send(method, path, body, used)
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401 || session === null) throw err
    // Another request may have renewed the token meanwhile: then this one only tries again.
    if (session.accessToken === used) await renew()
    return send(method, path, body, session.accessToken)
  }
}

/** The account endpoints that need no session (sign-up, login, links); a login's sets the cookie. */
export function publicApi(method, path, body) {
  return send(method, path, body, undefined, true)
}

/** The path of a project route for a project. */
export function projectPath(projectId, path) {
  return `/api/projects/${encodeURIComponent(projectId)}${path}`
}

export function query(params) {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined && value !== '' && value !== null)
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries)}`
}
