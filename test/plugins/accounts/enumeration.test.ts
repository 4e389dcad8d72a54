// The unauthenticated account routes never tell whether an e-mail address has an account.
import t from 'tap'
import { call, type JsonAnswer } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, verifiedOwner, testOnEachStore } from './helpers.ts'

/** Status and body, with the fields that echo the request or are fresh on every call (the id) replaced. */
function shape(answer: JsonAnswer): unknown {
  const body = answer.body as { user?: { id: string; email: string } }
  return { status: answer.status, body: body.user === undefined ? body : { ...body, user: { id: typeof body.user.id, email: typeof body.user.email } } }
}

testOnEachStore(t, 'sign-up, login and magic-link answer alike for an existing and an unknown address', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const known = await verifiedOwner(gw, mailbox, 'known@example.com')
  const unknown = 'nobody@example.com'

  const again = await post(`${gw.url}/api/auth/signup`, { email: known.email, password: 'another-password', organizationName: 'Second' })
  const fresh = await post(`${gw.url}/api/auth/signup`, { email: unknown, password: 'another-password', organizationName: 'Second' })
  t.same(shape(again), shape(fresh), 'sign-up')
  t.equal(again.body.user.email, known.email)
  t.not(again.body.user.id, known.userId, "the existing account's id is not revealed")
  t.match((await mailbox.next(known.email)).subject, 'already have', 'the owner of the address is told instead')
  t.equal((await post(`${gw.url}/api/auth/login`, { email: known.email, password: known.password })).status, 200, 'the existing account keeps its password')

  const wrongPassword = await post(`${gw.url}/api/auth/login`, { email: known.email, password: 'wrong-password' })
  const noAccount = await post(`${gw.url}/api/auth/login`, { email: 'ghost@example.com', password: 'wrong-password' })
  t.same(shape(wrongPassword), shape(noAccount), 'login')
  t.same(wrongPassword.body, { error: 'Unauthorized', message: 'The e-mail address or the password is wrong.', code: 'unauthorized' })

  const linkKnown = await post(`${gw.url}/api/auth/magic-link`, { email: known.email })
  const linkUnknown = await post(`${gw.url}/api/auth/magic-link`, { email: 'ghost@example.com' })
  t.same(shape(linkKnown), shape(linkUnknown), 'magic link')
  t.equal((await mailbox.next(known.email)).subject, 'Your sign-in link')
  t.notOk(
    mailbox.received.some((m) => m.to === 'ghost@example.com'),
    'nothing is mailed to an unknown address',
  )
})

testOnEachStore(t, 'a login for an unknown address runs the same password hash as one for a known address', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const known = await verifiedOwner(gw, mailbox, 'timing@example.com')
  const verifications = async () => {
    const metrics = (await call(`${gw.mainUrl}/metrics`)).body as string
    return Number(/tollgate_worker_task_duration_seconds_count\{task="verifyPassword"\} (\d+)/.exec(metrics)?.[1] ?? 0)
  }
  const before = await verifications()
  await post(`${gw.url}/api/auth/login`, { email: known.email, password: 'wrong-password' })
  t.equal(await verifications(), before + 1, 'a known address costs one scrypt verification')
  await post(`${gw.url}/api/auth/login`, { email: 'ghost@example.com', password: 'wrong-password' })
  t.equal(await verifications(), before + 2, 'so does an unknown one')
})

testOnEachStore(t, "a second sign-up of an unverified address creates no account, and the opened link sets that sign-up's password", async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const email = 'victim@example.com'
  await post(`${gw.url}/api/auth/signup`, { email, password: 'squatter-password', organizationName: 'Squat' })
  const squatterLink = (await mailbox.next(email)).links[0]!
  await post(`${gw.url}/api/auth/signup`, { email, password: 'owner-password', organizationName: 'Mine' })
  const ownerLink = (await mailbox.next(email)).links[0]!

  t.equal((await post(`${gw.url}/api/auth/login`, { email, password: 'owner-password' })).status, 401, 'not verified, and not the stored password yet')
  t.equal((await call(ownerLink)).status, 200)
  const login = await post(`${gw.url}/api/auth/login`, { email, password: 'owner-password' })
  t.equal(login.status, 200, 'the password of the sign-up whose link was opened counts')
  t.equal((await post(`${gw.url}/api/auth/login`, { email, password: 'squatter-password' })).status, 401, "the squatter's password does not")
  t.equal((await call(squatterLink)).status, 401, 'an older link cannot reset it once verified')
})
