// With DATABASE_URL and SMTP_URL, account mail is queued in the database and each mail is sent
// by one gateway: a mail whose relay refused it stays queued, waits, and goes out, once, from a
// gateway whose relay works.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { freePort } from '../../../bench/free-port.ts'
import { POSTGRES_MISSING } from '../../helpers/postgres-server.ts'
import { freshDatabase, post, startAccounts, startMailbox } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

t.test('a mail the relay refused stays queued, holds up no other, and is sent once by another gateway when due', { skip: POSTGRES_MISSING }, async (t) => {
  const databaseUrl = await freshDatabase(t)
  const mailbox = await startMailbox(t)
  const deadRelay = `smtp://127.0.0.1:${await freePort()}`
  const clock = manualClock()
  const a = await startAccounts(t, { databaseUrl, clock, overrides: { plugins: { accounts: { smtpUrl: deadRelay } } } })
  t.equal((await post(`${a.url}/api/auth/signup`, { email: 'grace@example.com', password: 'cobol-forever', organizationName: 'Navy' })).status, 200)
  // Closing waits for the background send, which failed: the mail is still in the queue.
  await a.gateway.close()

  const b = await startAccounts(t, { databaseUrl, mailbox, clock })
  t.equal((await post(`${b.url}/api/auth/signup`, { email: 'ada@example.com', password: 'engines', organizationName: 'Engines' })).status, 200)
  const ada = await mailbox.next('ada@example.com')
  t.same(
    mailbox.received.map((mail) => mail.to),
    ['ada@example.com'],
    'the refused mail waits its turn and holds up no other',
  )

  clock.advance(60_000)
  t.equal((await post(`${b.url}/api/auth/signup`, { email: 'alan@example.com', password: 'machines', organizationName: 'Machines' })).status, 200)
  const [grace] = await Promise.all([mailbox.next('grace@example.com'), mailbox.next('alan@example.com')])
  t.equal((await call(grace.links[0]!.replace(a.url, b.url))).status, 200, "the queued mail's link works")
  t.match(ada.subject, 'Verify your e-mail address')
  t.equal(mailbox.received.length, 3, 'each mail sent once')
})
