// Two gateways on one PostgreSQL database are one accounts service: an account made on one signs
// in on the other, an access token from either works on both, a refresh token rotated on one is
// refused as reused on the other (revoking the session on both), each mail goes out once, and the
// attempt limits count the attempts of both together. While the database is away, the account
// routes fail at once with 503.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { POSTGRES_MISSING } from '../../helpers/postgres-server.ts'
import {
  filePostgres,
  freshDatabase,
  invitedMember,
  login,
  post,
  startAccounts,
  startMailbox,
  tokenOf,
  verifiedOwner,
  type AccountsGateway,
} from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

/** The same path and query on another gateway: the mailed links name the gateway that mailed them. */
const on = (gw: AccountsGateway, link: string) => {
  const { pathname, search } = new URL(link)
  return `${gw.url}${pathname}${search}`
}

t.test('two gateways on one database', { skip: POSTGRES_MISSING }, async (t) => {
  const mailbox = await startMailbox(t)
  const databaseUrl = await freshDatabase(t)
  const clock = manualClock()
  const [a, b] = await Promise.all([startAccounts(t, { mailbox, clock, databaseUrl }), startAccounts(t, { mailbox, clock, databaseUrl })])

  t.test('sign up on A, verify and log in on B, refresh on A, reuse on B refused', async (t) => {
    const email = 'ada@example.com'
    const password = 'correct horse battery'
    t.equal((await post(`${a.url}/api/auth/signup`, { email, password, organizationName: 'Analytical' })).status, 200)
    t.equal((await call(on(b, (await mailbox.next(email)).links[0]!))).status, 200, 'the link mailed by A verifies on B')
    const session = await login(b, email, password)
    t.equal((await call(`${a.url}/api/orgs/me`, { headers: session.headers })).status, 200, 'an access token signed on B verifies on A')

    const refreshed = await post(`${a.url}/api/auth/refresh`, { refresh_token: session.refreshToken })
    t.equal(refreshed.status, 200, 'the refresh token from B rotates on A')
    const reused = await post(`${b.url}/api/auth/refresh`, { refresh_token: session.refreshToken })
    t.equal(reused.status, 401, 'the rotated token presented on B is refused')
    t.equal((await post(`${a.url}/api/auth/refresh`, { refresh_token: refreshed.body.refresh_token })).status, 401, 'the reuse revoked the family on A too')
    t.equal((await call(`${a.url}/api/orgs/me`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } })).status, 401, 'and its access tokens')
    t.equal((await login(a, email, password)).email, email, 'a new login on A works')
  })

  t.test('concurrent refreshes of one token on both gateways let exactly one through', async (t) => {
    const session = await login(a, 'ada@example.com', 'correct horse battery')
    const answers = await Promise.all([a, b, a, b].map((gw) => post(`${gw.url}/api/auth/refresh`, { refresh_token: session.refreshToken })))
    t.same(answers.map((answer) => answer.status).sort(), [200, 401, 401, 401])
  })

  t.test('an invitation made on A is accepted once, on B; the member is removed on A and loses B', async (t) => {
    const owner = await login(a, 'ada@example.com', 'correct horse battery')
    const member = await invitedMember(b, mailbox, owner, 'grace@example.com', 'member')
    t.equal((await call(`${a.url}/api/orgs/me/members`, { headers: owner.headers })).body.members.length, 2)
    t.equal((await call(`${b.url}/api/orgs/me`, { headers: member.headers })).status, 200)
    // Entries order by time; within one millisecond, two gateways' entries fall in no set order.
    clock.advance(1)
    t.equal((await call(`${a.url}/api/orgs/me/members/${member.userId}`, { method: 'DELETE', headers: owner.headers })).status, 200)
    t.equal((await call(`${b.url}/api/orgs/me`, { headers: member.headers })).status, 401, "the removed member's session ends on B")
    t.equal((await post(`${b.url}/api/auth/refresh`, { refresh_token: member.refreshToken })).status, 401)
    const log = await call(`${b.url}/api/orgs/me/audit-log`, { headers: owner.headers })
    t.same(
      log.body.entries.map((entry: { action: string }) => entry.action),
      ['member.remove', 'member.join', 'member.invite'],
      'one audit log, newest first',
    )
  })

  t.test('a magic link mailed by B signs in once, on A', async (t) => {
    t.equal((await post(`${b.url}/api/auth/magic-link`, { email: 'ada@example.com' })).status, 200)
    const token = tokenOf((await mailbox.next('ada@example.com')).links[0]!)
    const [first, second] = await Promise.all([a, b].map((gw) => post(`${gw.url}/api/auth/magic-link/verify`, { token })))
    t.same([first!.status, second!.status].sort(), [200, 401])
  })

  t.test('one address signed up on both gateways at once makes one account', async (t) => {
    const email = 'twice@example.com'
    const answers = await Promise.all([a, b].map((gw, i) => post(`${gw.url}/api/auth/signup`, { email, password: `password-${i}`, organizationName: 'Twice' })))
    t.same(
      answers.map((answer) => answer.status),
      [200, 200],
    )
    const links = [(await mailbox.next(email)).links[0]!, (await mailbox.next(email)).links[0]!]
    t.equal((await call(on(b, links[0]!))).status, 200, 'one link verifies the account')
    t.equal((await call(on(a, links[1]!))).status, 401, 'the other finds it verified: there is one account, not two')
  })

  t.test('two owners demoting each other on two gateways at once: one stays owner', async (t) => {
    const lin = await verifiedOwner(a, mailbox, 'lin@example.com', 'Pair')
    const max = await invitedMember(b, mailbox, lin, 'max@example.com', 'admin')
    t.equal((await call(`${a.url}/api/orgs/me/members/${max.userId}`, { method: 'PATCH', body: { role: 'owner' }, headers: lin.headers })).status, 200)
    const demote = (gw: AccountsGateway, by: typeof lin, userId: string) =>
      call(`${gw.url}/api/orgs/me/members/${userId}`, { method: 'PATCH', body: { role: 'admin' }, headers: by.headers })
    const answers = await Promise.all([demote(a, lin, max.userId), demote(b, max, lin.userId)])
    // The loser is refused either way: 409 when both checked their role before either committed,
    // 403 when the winner committed first and the loser was no longer an owner when checked.
    const [first, second] = answers.map((answer) => answer.status).sort()
    t.equal(first, 200)
    t.ok(second === 409 || second === 403, `the other demotion is refused (${second})`)
    const members = await call(`${a.url}/api/orgs/me/members`, { headers: (answers[0]!.status === 200 ? lin : max).headers })
    t.equal(members.body.members.filter((m: { role: string }) => m.role === 'owner').length, 1)
  })

  t.test('each mail is delivered once', async (t) => {
    // Every mail carries a token or says something once, so a mail sent twice is a repeated text.
    const mails = mailbox.received.map((mail) => `${mail.to} ${mail.text}`)
    t.same(mails, [...new Set(mails)], 'no mail twice')
  })

  t.test('the attempt limits count both gateways together', async (t) => {
    const email = 'target@example.com'
    for (let i = 0; i < 5; i++) t.equal((await post(`${[a, b][i % 2]!.url}/api/auth/login`, { email, password: `guess-${i}` })).status, 401)
    t.equal((await post(`${a.url}/api/auth/login`, { email, password: 'guess-5' })).status, 429)
    t.equal((await post(`${b.url}/api/auth/login`, { email, password: 'guess-6' })).status, 429)
    clock.advance(60_000)
    t.equal((await post(`${b.url}/api/auth/login`, { email, password: 'guess-7' })).status, 401, 'allowed again after the window')
  })

  t.test('while the database is away a login fails at once with 503, and works again once it is back', async (t) => {
    const server = await filePostgres()
    await server.stop()
    const away = await post(`${a.url}/api/auth/login`, { email: 'ada@example.com', password: 'correct horse battery' })
    t.equal(away.status, 503)
    t.ok(Number(away.headers['retry-after']) > 0, 'with a retry-after')
    await server.start()
    t.equal((await login(b, 'ada@example.com', 'correct horse battery')).email, 'ada@example.com')
    t.equal((await login(a, 'ada@example.com', 'correct horse battery')).email, 'ada@example.com')
  })
})
