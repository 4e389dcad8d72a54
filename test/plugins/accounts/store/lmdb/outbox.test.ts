// Without SMTP_URL, mail lands in the local outbox, which `tollgate outbox` prints with its links.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { call } from '../../../../helpers/http.ts'
import { freshDataDir } from '../../../../helpers/start-gateway.ts'
import { post, startAccounts, tokenOf } from '../../helpers.ts'
import { manualClock } from '../../../../helpers/manual-clock.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../../../cli/tollgate.ts', import.meta.url))

async function outbox(dataDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, 'outbox', '--data', dataDir, ...args])
  return stdout
}

t.test('without SMTP the verification mail goes to the outbox, and the CLI prints it with its link', async (t) => {
  const dataDir = freshDataDir(t)
  const clock = manualClock()
  const first = await startAccounts(t, { dataDir, clock })
  const email = 'grace@example.com'
  const password = 'cobol-forever'
  t.equal((await post(`${first.url}/api/auth/signup`, { email, password, organizationName: 'Navy' })).status, 200)
  t.equal((await post(`${first.url}/api/auth/signup`, { email: 'other@example.com', password, organizationName: 'Other' })).status, 200)
  // Closing waits for background work, so the mail is committed before the CLI reads the store.
  await first.gateway.close()

  const messages = JSON.parse(await outbox(dataDir, '--to', email, '--json')) as Array<{ to: string; subject: string; links: string[]; sentAt: string }>
  t.equal(messages.length, 1, '--to keeps one address')
  t.match(messages[0], { to: email, subject: 'Verify your e-mail address', sentAt: new Date(clock.now()).toISOString() })
  t.match(messages[0]!.links[0], `${first.url}/api/auth/verify?token=`, "without publicUrl, links use the request's own host")
  const text = await outbox(dataDir)
  t.match(text, `link: ${messages[0]!.links[0]}`)
  t.match(text, 'to other@example.com')

  const second = await startAccounts(t, { dataDir, clock })
  t.equal((await call(`${second.url}/api/auth/verify?token=${tokenOf(messages[0]!.links[0]!)}`)).status, 200)
  t.equal((await post(`${second.url}/api/auth/login`, { email, password })).status, 200)
})

t.test('links use publicUrl when it is configured', async (t) => {
  const dataDir = freshDataDir(t)
  const gw = await startAccounts(t, { dataDir, overrides: { plugins: { accounts: { publicUrl: 'https://auth.example.com/' } } } })
  await post(`${gw.url}/api/auth/signup`, { email: 'linus@example.com', password: 'kernel', organizationName: 'Kernel' })
  await gw.gateway.close()
  const [message] = JSON.parse(await outbox(dataDir, '--json')) as Array<{ links: string[] }>
  t.match(message!.links[0], /^https:\/\/auth\.example\.com\/api\/auth\/verify\?token=[\w-]{43}$/)
})

t.test('no link is mailed when the Host header names another machine and publicUrl is not set', async (t) => {
  const dataDir = freshDataDir(t)
  const gw = await startAccounts(t, { dataDir })
  const res = await post(`${gw.url}/api/auth/signup`, { email: 'mallory@example.com', password: 'poisoned', organizationName: 'X' }, { host: 'evil.example' })
  t.equal(res.status, 200, 'the answer does not change')
  await gw.gateway.close()
  t.same(JSON.parse(await outbox(dataDir, '--json')), [])
})
