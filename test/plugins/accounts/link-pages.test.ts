// A browser that opens a mailed link is sent to the dashboard's page for it, with the token in the
// fragment and not yet used; programs that call the same link get the API's answer as before.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, tokenOf, verifiedOwner } from './helpers.ts'

const NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

t.test('verification, sign-in and invitation links lead a browser to the dashboard without using the token', async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox })
  await post(`${gw.url}/api/auth/signup`, { email: 'new@example.com', password: 'secret-pw', organizationName: 'New' })
  const verifyLink = (await mailbox.next('new@example.com')).links[0]!
  const opened = await call(verifyLink, { headers: NAVIGATION })
  t.equal(opened.status, 303)
  t.equal(opened.headers.location, `/dashboard/#/verify?token=${tokenOf(verifyLink)}`)
  const byScript = await call(verifyLink)
  t.equal(byScript.status, 200, 'the token still works: the page calls the API with it')
  t.match(byScript.body, { success: true })

  await post(`${gw.url}/api/auth/magic-link`, { email: 'new@example.com' })
  const magicLink = (await mailbox.next('new@example.com')).links[0]!
  const olderBrowser = await call(magicLink, { headers: { accept: 'text/html,*/*' } })
  t.equal(olderBrowser.status, 303, 'a browser without Fetch Metadata is known by asking for HTML')
  t.equal(olderBrowser.headers.location, `/dashboard/#/magic?token=${tokenOf(magicLink)}`)
  t.notOk(JSON.stringify(olderBrowser.body).includes('access_token'), 'no tokens in the answer a browser shows')
  const signedIn = await post(`${gw.url}/api/auth/magic-link/verify`, { token: tokenOf(magicLink) })
  t.equal(signedIn.status, 200)

  const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Team')
  await post(`${gw.url}/api/orgs/me/invitations`, { email: 'friend@example.com', role: 'member' }, owner.headers)
  const invitation = (await mailbox.next('friend@example.com')).links[0]!
  const invited = await call(invitation, { headers: NAVIGATION })
  t.equal(invited.status, 303)
  t.equal(invited.headers.location, `/dashboard/#/invitation?token=${tokenOf(invitation)}`)
  t.equal((await post(`${gw.url}/api/orgs/invitations/accept`, { token: tokenOf(invitation), password: 'friend-pw' })).status, 200)
})

t.test('without the dashboard, links answer as the API always did', async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, overrides: { plugins: { dashboard: { enabled: false } } } })
  await post(`${gw.url}/api/auth/signup`, { email: 'plain@example.com', password: 'secret-pw', organizationName: 'Plain' })
  const link = (await mailbox.next('plain@example.com')).links[0]!
  t.equal((await call(link, { headers: NAVIGATION })).status, 200)
  const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Team')
  await post(`${gw.url}/api/orgs/me/invitations`, { email: 'friend@example.com', role: 'member' }, owner.headers)
  t.equal((await call((await mailbox.next('friend@example.com')).links[0]!, { headers: NAVIGATION })).status, 405)
})
