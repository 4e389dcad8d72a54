// The refresh token in an HttpOnly cookie, for callers that ask with X-Refresh-Cookie: 1 (the
// dashboard): out of the answer's body, sent back only to the refresh route, rotated there as the
// body's token is, and cleared at logout. Callers that do not ask get the spec's answers.
import t, { type Test } from 'tap'
import { call } from '../../../helpers/http.ts'
import { post, startAccounts, startMailbox, verifiedOwner } from '../helpers.ts'

const ASK = { 'x-refresh-cookie': '1' }

function cookieOf(t: Test, setCookie: string | undefined): { value: string; attributes: string[] } {
  const [pair = '', ...attributes] = (setCookie ?? '').split(';').map((part) => part.trim())
  t.match(pair, /^__Secure-tollgate-refresh=/)
  return { value: pair.slice(pair.indexOf('=') + 1), attributes }
}

t.test('a login that asks for the cookie gets the refresh token only there, and refreshes with it', async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox })
  const owner = await verifiedOwner(gw, mailbox, 'cookie@example.com')

  const signedIn = await post(`${gw.url}/api/auth/login`, { email: owner.email, password: owner.password }, ASK)
  t.equal(signedIn.status, 200)
  t.equal(signedIn.body.refresh_token, undefined, 'the body holds no refresh token')
  t.type(signedIn.body.access_token, 'string')
  t.equal(signedIn.headers['cache-control'], 'no-store')
  const first = cookieOf(t, signedIn.headers['set-cookie'])
  t.match(first.value, /^[\w-]{43}$/)
  t.same(first.attributes.sort(), ['HttpOnly', 'Max-Age=2592000', 'Path=/api/auth/refresh', 'SameSite=Strict', 'Secure'])

  const cookie = (value: string) => ({ ...ASK, cookie: `other=1; __Secure-tollgate-refresh=${value}` })
  const renewed = await post(`${gw.url}/api/auth/refresh`, {}, cookie(first.value))
  t.equal(renewed.status, 200)
  t.equal(renewed.body.refresh_token, undefined)
  t.same(renewed.body.user, { id: owner.userId, email: owner.email, organization_id: owner.organizationId }, 'a reloaded page learns who it is')
  const second = cookieOf(t, renewed.headers['set-cookie'])
  t.not(second.value, first.value, 'rotated')
  t.equal((await call(`${gw.url}/api/orgs/me`, { headers: { authorization: `Bearer ${renewed.body.access_token}` } })).status, 200)

  t.equal((await post(`${gw.url}/api/auth/refresh`, {}, cookie(first.value))).status, 401, 'the rotated cookie presented again is reuse')
  t.equal((await post(`${gw.url}/api/auth/refresh`, {}, cookie(second.value))).status, 401, 'and the reuse ended the family')
})

t.test('the cookie is used only when asked for, and logout clears it', async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox })
  const owner = await verifiedOwner(gw, mailbox, 'plain@example.com')
  t.type(owner.refreshToken, 'string', 'a login without the header answers as the spec says')

  const signedIn = await post(`${gw.url}/api/auth/login`, { email: owner.email, password: owner.password }, ASK)
  const { value } = cookieOf(t, signedIn.headers['set-cookie'])
  const withCookie = { cookie: `__Secure-tollgate-refresh=${value}` }
  const unasked = await post(`${gw.url}/api/auth/refresh`, {}, withCookie)
  t.equal(unasked.status, 400, 'a cookie without the header is not a refresh token')
  t.equal((await post(`${gw.url}/api/auth/refresh`, {}, ASK)).status, 401, 'the header without a cookie is refused')

  const out = await post(`${gw.url}/api/auth/logout`, {}, { authorization: `Bearer ${signedIn.body.access_token}` })
  t.equal(out.status, 200)
  t.match(out.headers['set-cookie'], /^__Secure-tollgate-refresh=; Path=\/api\/auth\/refresh; HttpOnly; Secure; SameSite=Strict; Max-Age=0$/)
  t.equal((await post(`${gw.url}/api/auth/refresh`, {}, { ...ASK, ...withCookie })).status, 401, 'the session ended with the logout')
})
