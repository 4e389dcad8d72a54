// Refresh-token rotation under concurrency, and logout by bearer token.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, verifiedOwner, testOnEachStore } from './helpers.ts'

testOnEachStore(t, 'two concurrent refreshes with one token let exactly one through', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const owner = await verifiedOwner(gw, mailbox, 'racer@example.com')
  const refresh = () => post(`${gw.url}/api/auth/refresh`, { refresh_token: owner.refreshToken })
  const answers = await Promise.all([refresh(), refresh(), refresh(), refresh()])
  t.same(answers.map((a) => a.status).sort(), [200, 401, 401, 401])
  t.equal(
    answers.filter((a) => a.status === 401).every((a) => a.body.error === 'Unauthorized'),
    true,
  )
})

testOnEachStore(t, 'logout with only a bearer token ends that session and no other', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const owner = await verifiedOwner(gw, mailbox, 'leaver@example.com')
  const other = await post(`${gw.url}/api/auth/login`, { email: owner.email, password: owner.password })
  t.equal((await post(`${gw.url}/api/auth/logout`, {}, owner.headers)).status, 200)
  t.equal((await call(`${gw.url}/api/orgs/me`, { headers: owner.headers })).status, 401)
  t.equal((await post(`${gw.url}/api/auth/refresh`, { refresh_token: owner.refreshToken })).status, 401)
  t.equal((await post(`${gw.url}/api/auth/refresh`, { refresh_token: other.body.refresh_token })).status, 200)
  t.equal((await post(`${gw.url}/api/auth/logout`, {})).status, 401, 'no token at all is refused')
  t.equal((await post(`${gw.url}/api/auth/logout`, { refresh_token: 'x'.repeat(43) })).status, 401, 'an unknown refresh token is refused')
})
