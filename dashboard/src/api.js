// The management API client. The session (access and refresh token) lives in this module's memory
// only: never in localStorage, sessionStorage or a cookie, so a reload or a closed tab ends it, and
// the server ends it too (the refresh token is revoked as the page goes away). Requests carry the
// access token as a bearer header; CSRF has nothing to ride on. The access token is renewed before
// it expires, and once after a 401; renewals never overlap, since the API treats a refresh token
// presented twice as stolen and ends the session.

const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000

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

async function send(method, path, body, accessToken) {
  const headers = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`
  let res
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' })
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
  session = {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    user: user ?? session?.user,
  }
  const renewInMs = Math.max(10_000, tokens.expires_in * 1000 - RENEW_BEFORE_EXPIRY_MS)
  renewTimer = setTimeout(() => renew().catch(() => {}), renewInMs)
}

function end() {
  clearTimeout(renewTimer)
  session = null
  renewal = null
  notify()
}

/** Exchanges the refresh token for new tokens, once at a time. */
function renew() {
  if (session === null) return Promise.reject(new ApiError(401, { error: 'Unauthorized', message: 'Sign in again.' }))
  renewal ??= send('POST', '/api/auth/refresh', { refresh_token: session.refreshToken })
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
  begin(answer, answer.user)
  notify()
}

export async function signOut() {
  const ending = session
  end()
  if (ending !== null) await send('POST', '/api/auth/logout', { refresh_token: ending.refreshToken }).catch(() => {})
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

/** The account endpoints that need no session (sign-up, login, links). */
export function publicApi(method, path, body) {
  return send(method, path, body, undefined)
}

/** The path of a project route for a project. */
export function projectPath(projectId, path) {
  return `/api/projects/${encodeURIComponent(projectId)}${path}`
}

export function query(params) {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined && value !== '' && value !== null)
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries)}`
}

// A page that goes away (reload, closed tab, another site) takes its tokens with it; the server
// is told, so the session does not outlive the page.
addEventListener('pagehide', () => {
  if (session === null) return
  fetch('/api/auth/logout', {
    method: 'POST', keepalive: true, credentials: 'omit',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: session.refreshToken }),
  }).catch(() => {})
  end()
})
