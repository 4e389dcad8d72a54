// With DATABASE_URL and without SMTP_URL, the gateways on the database keep one outbox, which
// `tollgate outbox` reads from the database: a mail a gateway kept is there for a link opened
// on another.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { call } from '../../helpers/http.ts'
import { POSTGRES_MISSING } from '../../helpers/postgres-server.ts'
import { freshDatabase, post, startAccounts, tokenOf } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

t.test('two gateways keep their mail in one outbox, which the CLI prints from the database', { skip: POSTGRES_MISSING }, async (t) => {
  const databaseUrl = await freshDatabase(t)
  const clock = manualClock()
  const [a, b] = await Promise.all([startAccounts(t, { clock, databaseUrl }), startAccounts(t, { clock, databaseUrl })])
  const password = 'cobol-forever'
  t.equal((await post(`${a.url}/api/auth/signup`, { email: 'grace@example.com', password, organizationName: 'Navy' })).status, 200)
  t.equal((await post(`${b.url}/api/auth/signup`, { email: 'ada@example.com', password, organizationName: 'Engines' })).status, 200)
  // Closing waits for background work, so both mails are committed before the CLI reads them.
  await Promise.all([a.gateway.close(), b.gateway.close()])

  const { stdout } = await run(process.execPath, [CLI, 'outbox', '--data', a.dataDir, '--json'], { env: { ...process.env, DATABASE_URL: databaseUrl } })
  const messages = JSON.parse(stdout) as Array<{ to: string; links: string[] }>
  t.same(messages.map((m) => m.to).sort(), ['ada@example.com', 'grace@example.com'], 'the mail of both gateways')

  const c = await startAccounts(t, { clock, databaseUrl })
  const grace = messages.find((m) => m.to === 'grace@example.com')!
  t.equal((await call(`${c.url}/api/auth/verify?token=${tokenOf(grace.links[0]!)}`)).status, 200, 'a link kept by one gateway works on another')
  t.equal((await post(`${c.url}/api/auth/login`, { email: 'grace@example.com', password })).status, 200)
})
