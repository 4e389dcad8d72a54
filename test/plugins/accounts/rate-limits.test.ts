// Login, sign-up and magic-link attempts are limited per client IP and per e-mail address.
import t from 'tap'
import { post, startAccounts } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

t.test('the eleventh login in a minute from one IP gets 429 with retry_after, until the window passes', async (t) => {
  const clock = manualClock()
  const gw = await startAccounts(t, { clock })
  for (let i = 0; i < 10; i++) {
    t.equal((await post(`${gw.url}/api/auth/login`, { email: `user${i}@example.com`, password: 'whatever' })).status, 401)
  }
  clock.advance(20_000)
  const limited = await post(`${gw.url}/api/auth/login`, { email: 'user10@example.com', password: 'whatever' })
  t.equal(limited.status, 429)
  t.same(limited.body, { error: 'Too Many Requests', message: 'Too many attempts; retry in 40s.', code: 'too_many_requests', retry_after: 40 })
  t.equal(limited.headers['retry-after'], '40')
  clock.advance(40_000)
  t.equal((await post(`${gw.url}/api/auth/login`, { email: 'user10@example.com', password: 'whatever' })).status, 401, 'allowed again after the window')
})

for (const shared of [false, true]) {
  t.test(`the sixth login in a minute for one e-mail gets 429, whatever the IP (${shared ? 'counted in the store' : 'in memory'})`, async (t) => {
    const clock = manualClock()
    const gw = await startAccounts(t, { clock, overrides: { plugins: { accounts: { shared, rateLimits: { perIpPerMinute: 1000, perEmailPerMinute: 5 } } } } })
    for (let i = 0; i < 5; i++) t.equal((await post(`${gw.url}/api/auth/login`, { email: 'Target@Example.com', password: `guess-${i}` })).status, 401)
    const limited = await post(`${gw.url}/api/auth/login`, { email: 'target@example.com', password: 'guess-5' })
    t.equal(limited.status, 429, 'addresses count case-insensitively')
    t.equal(limited.body.retry_after, 60)
    t.equal((await post(`${gw.url}/api/auth/login`, { email: 'someone-else@example.com', password: 'x' })).status, 401, 'other addresses are unaffected')
    clock.advance(60_000)
    t.equal((await post(`${gw.url}/api/auth/login`, { email: 'target@example.com', password: 'guess-6' })).status, 401, 'allowed again after the window')
  })
}

t.test('sign-up and magic-link are limited too, each on its own count', async (t) => {
  const gw = await startAccounts(t, { overrides: { plugins: { accounts: { rateLimits: { perIpPerMinute: 2, perEmailPerMinute: 5 } } } } })
  const signup = (i: number) => post(`${gw.url}/api/auth/signup`, { email: `s${i}@example.com`, password: 'secret', organizationName: 'O' })
  t.same([(await signup(1)).status, (await signup(2)).status, (await signup(3)).status], [200, 200, 429])
  const magic = (i: number) => post(`${gw.url}/api/auth/magic-link`, { email: `m${i}@example.com` })
  t.same([(await magic(1)).status, (await magic(2)).status, (await magic(3)).status], [200, 200, 429])
})
