// The account lifecycle end to end, with mail delivered through a real SMTP receiver.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, tokenOf, testOnEachStore } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

testOnEachStore(t, 'sign-up, verification, login, refresh, reuse detection, magic link and logout work through SMTP mail', async (t, store) => {
  const mailbox = await startMailbox(t)
  const clock = manualClock()
  const gw = await startAccounts(t, { clock, mailbox, store })
  const email = 'ada@example.com'
  const password = 'analytical-engine'

  const signup = await post(`${gw.url}/api/auth/signup`, { email, password, organizationName: 'Analytical' })
  t.equal(signup.status, 200)
  t.match(signup.body, { success: true, user: { email, id: /^[0-9a-f-]{36}$/ }, message: String })

  const verification = await mailbox.next(email)
  t.equal(verification.subject, 'Verify your e-mail address')
  t.match(verification.links[0], `${gw.url}/api/auth/verify?token=`)

  const early = await post(`${gw.url}/api/auth/login`, { email, password })
  t.equal(early.status, 403, 'login before verification is refused')
  t.match(early.body, { error: 'Forbidden', message: /verify/i })

  t.equal((await call(verification.links[0]!)).status, 200)
  t.equal((await call(verification.links[0]!)).status, 401, 'a verification link works once')

  const login = await post(`${gw.url}/api/auth/login`, { email, password })
  t.equal(login.status, 200)
  t.match(login.body, { expires_in: 3600, token_type: 'bearer', user: { id: signup.body.user.id, email, organization_id: /^[0-9a-f-]{36}$/ } })
  t.match(login.body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/)
  t.match(login.body.refresh_token, /^[\w-]{43}$/)
  const me = async (token: string) => (await call(`${gw.url}/api/orgs/me`, { headers: { authorization: `Bearer ${token}` } })).status
  t.equal(await me(login.body.access_token), 200)

  const refreshed = await post(`${gw.url}/api/auth/refresh`, { refresh_token: login.body.refresh_token })
  t.equal(refreshed.status, 200)
  t.match(refreshed.body, { expires_in: 3600, token_type: 'bearer' })
  t.not(refreshed.body.refresh_token, login.body.refresh_token)
  t.equal(await me(refreshed.body.access_token), 200)

  const reuse = await post(`${gw.url}/api/auth/refresh`, { refresh_token: login.body.refresh_token })
  t.equal(reuse.status, 401, 'the rotated token no longer works')
  t.match(reuse.body, { error: 'Unauthorized', message: String })
  t.equal(
    (await post(`${gw.url}/api/auth/refresh`, { refresh_token: refreshed.body.refresh_token })).status,
    401,
    'reuse revoked the newest token of the family',
  )
  t.equal(await me(refreshed.body.access_token), 401, 'and the access tokens of that login')

  t.same((await post(`${gw.url}/api/auth/magic-link`, { email })).body, {
    success: true,
    message: 'If an account exists for this address, a sign-in link is on its way.',
  })
  const magic = await mailbox.next(email)
  t.equal(magic.subject, 'Your sign-in link')
  const viaLink = await call(magic.links[0]!)
  t.equal(viaLink.status, 200, 'the GET form the link points to signs in')
  t.match(viaLink.body, { token_type: 'bearer', expires_in: 3600, user: { email } })
  t.equal((await post(`${gw.url}/api/auth/magic-link/verify`, { token: tokenOf(magic.links[0]!) })).status, 401, 'a second use fails')

  await post(`${gw.url}/api/auth/magic-link`, { email })
  const late = await mailbox.next(email)
  clock.advance(3600_000 + 1000)
  t.equal((await post(`${gw.url}/api/auth/magic-link/verify`, { token: tokenOf(late.links[0]!) })).status, 401, 'a link expires after one hour')
  await post(`${gw.url}/api/auth/magic-link`, { email })
  const fresh = await mailbox.next(email)
  clock.advance(3600_000 - 1000)
  const session = await post(`${gw.url}/api/auth/magic-link/verify`, { token: tokenOf(fresh.links[0]!) })
  t.equal(session.status, 200, 'a link still works just before the hour is up')

  const other = await post(`${gw.url}/api/auth/login`, { email, password })
  t.equal(await me(session.body.access_token), 200)
  t.same((await post(`${gw.url}/api/auth/logout`, { refresh_token: session.body.refresh_token })).body, {
    success: true,
    message: "Signed out: the session's tokens no longer work.",
  })
  t.equal((await post(`${gw.url}/api/auth/refresh`, { refresh_token: session.body.refresh_token })).status, 401, 'logout revokes the refresh token')
  t.equal(await me(session.body.access_token), 401, 'and the access token of the session')
  t.equal(await me(other.body.access_token), 200, 'other sessions stay signed in')
  t.equal(await me(viaLink.body.access_token), 401, 'an access token expires after an hour')
})

testOnEachStore(t, 'a verification link expires after 24 hours, and an unverified address gets no magic link', async (t, store) => {
  const mailbox = await startMailbox(t)
  const clock = manualClock()
  const gw = await startAccounts(t, { clock, mailbox, store })
  const email = 'slow@example.com'
  await post(`${gw.url}/api/auth/signup`, { email, password: 'patience', organizationName: 'Later' })
  const link = (await mailbox.next(email)).links[0]!
  t.equal((await post(`${gw.url}/api/auth/magic-link`, { email })).status, 200)
  clock.advance(24 * 3600_000)
  t.equal((await call(link)).status, 401, 'expired')
  t.equal((await post(`${gw.url}/api/auth/login`, { email, password: 'patience' })).status, 403, 'still unverified')
  await post(`${gw.url}/api/auth/signup`, { email, password: 'patience', organizationName: 'Later' })
  const again = await mailbox.next(email)
  t.equal(again.subject, 'Verify your e-mail address', 'signing up again mails a new link; the magic-link request mailed nothing')
  t.equal((await call(again.links[0]!)).status, 200)
})
