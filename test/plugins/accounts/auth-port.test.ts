// With AUTH_PORT, the account routes move to their own listener; /api/ai/query stays on main.
import t from 'tap'
import { post, startAccounts } from './helpers.ts'

t.test('with an auth port the account routes answer on authUrl and not on the main url', async (t) => {
  const gw = await startAccounts(t, { overrides: { authPort: 0 } })
  t.not(gw.url, gw.mainUrl)
  const body = { email: 'port@example.com', password: 'secret-pw', organizationName: 'Ports' }
  t.equal((await post(`${gw.url}/api/auth/signup`, body)).status, 200)
  const onMain = await post(`${gw.mainUrl}/api/auth/signup`, body)
  t.equal(onMain.status, 404)
  t.equal((await post(`${gw.mainUrl}/api/auth/login`, { email: body.email, password: body.password })).status, 404)
  t.equal((await post(`${gw.mainUrl}/api/ai/query`, { question: 'hi' })).status, 401, 'the query route is on the main listener')
  t.equal((await post(`${gw.url}/api/ai/query`, { question: 'hi' })).status, 404, 'and only there')
})

t.test('without an auth port the account routes share the main listener', async (t) => {
  const gw = await startAccounts(t)
  t.equal(gw.url, gw.mainUrl)
  t.equal((await post(`${gw.url}/api/auth/login`, { email: 'x@example.com', password: 'nope' })).status, 401)
})
