// Shared pieces of the accounts tests: a real SMTP receiver, the gateway with the
// accounts plugin on either store, and the steps most tests start from (a verified owner with a
// session).
import tap, { type Test } from 'tap'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import type { Gateway } from '../../../proxy/index.ts'
import { call, type JsonAnswer } from '../../helpers/http.ts'
import { type ManualClock, manualClock } from '../../helpers/manual-clock.ts'
import { startTestGateway } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../helpers/postgres-server.ts'

/** Where the accounts plugin keeps its records: the gateway's LMDB store, or PostgreSQL (DATABASE_URL). */
export type StoreKind = 'lmdb' | 'postgres'
export const STORE_KINDS: readonly StoreKind[] = ['lmdb', 'postgres']

/** Why a test on this store is skipped, or false. */
export const skipWithout = (store: StoreKind): string | false => (store === 'postgres' ? POSTGRES_MISSING : false)

let postgres: Promise<PostgresServer> | undefined

/** The test file's one PostgreSQL server, which starts on first use. */
export function filePostgres(): Promise<PostgresServer> {
  postgres ??= startPostgres(tap)
  return postgres
}

/** A new database on the test file's PostgreSQL server. */
export async function freshDatabase(t: Test): Promise<string> {
  return (await filePostgres()).freshDatabase(t)
}

export interface ReceivedMail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly links: readonly string[]
}

export interface Mailbox {
  readonly url: string
  /** Resolves with the next message to this address, or one that arrived and was not taken yet. */
  next(to: string): Promise<ReceivedMail>
  /** Every message received so far. */
  readonly received: readonly ReceivedMail[]
}

function decodeBody(headers: string, body: string): string {
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase()
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8')
  if (encoding !== 'quoted-printable') return body
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}

function parseMail(raw: string, to: string): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const text = decodeBody(headers, raw.slice(split + 4)).replace(/\r\n/g, '\n')
  return { to, subject: /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '', text, links: text.match(/https?:\/\/\S+/g) ?? [] }
}

/** A real SMTP receiver on 127.0.0.1, port 0, for the duration of the test. */
export async function startMailbox(t: Test): Promise<Mailbox> {
  const received: ReceivedMail[] = []
  const unread: ReceivedMail[] = []
  const waiting: Array<{ to: string; resolve: (mail: ReceivedMail) => void }> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        for (const recipient of session.envelope.rcptTo) {
          const mail = parseMail(Buffer.concat(chunks).toString('utf8'), recipient.address)
          received.push(mail)
          const waiter = waiting.findIndex((w) => w.to === mail.to)
          if (waiter === -1) unread.push(mail)
          else waiting.splice(waiter, 1)[0]!.resolve(mail)
        }
        callback()
      })
    },
  })
  server.listen(0, '127.0.0.1')
  await once(server.server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next(to) {
      const index = unread.findIndex((m) => m.to === to)
      if (index !== -1) return Promise.resolve(unread.splice(index, 1)[0]!)
      return new Promise((resolve) => waiting.push({ to, resolve }))
    },
  }
}

export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token')!
}

export interface AccountsGateway {
  readonly gateway: Gateway
  /** Where the account routes answer (the auth listener, or the main one). */
  readonly url: string
  readonly mainUrl: string
  readonly dataDir: string
  readonly clock: ManualClock
  /** Set when the records are in PostgreSQL. */
  readonly databaseUrl: string | undefined
}

export interface AccountsStartOptions {
  readonly clock?: ManualClock
  readonly mailbox?: Mailbox
  readonly dataDir?: string
  readonly overrides?: Record<string, unknown>
  /** LMDB unless said otherwise; 'postgres' takes a fresh database, unless `databaseUrl` names one to share. */
  readonly store?: StoreKind
  readonly databaseUrl?: string
}

export async function startAccounts(t: Test, options: AccountsStartOptions = {}): Promise<AccountsGateway> {
  const clock = options.clock ?? manualClock()
  const databaseUrl = options.databaseUrl ?? (options.store === 'postgres' ? await freshDatabase(t) : undefined)
  const { gateway, dataDir } = await startTestGateway(t, {
    clock,
    env: {
      ...(options.mailbox === undefined ? {} : { SMTP_URL: options.mailbox.url }),
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    },
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
  })
  return { gateway, url: gateway.authUrl, mainUrl: gateway.url, dataDir, clock, databaseUrl }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return call(url, { method: 'POST', body, headers })
}

export interface Session {
  readonly email: string
  readonly password: string
  readonly userId: string
  readonly organizationId: string
  readonly accessToken: string
  readonly refreshToken: string
  readonly headers: Record<string, string>
}

/** Signs up, opens the verification link from the mailbox, and logs in. */
export async function verifiedOwner(gw: AccountsGateway, mailbox: Mailbox, email: string, organizationName = 'Acme'): Promise<Session> {
  const password = `pw-of-${email}`
  const signup = await post(`${gw.url}/api/auth/signup`, { email, password, organizationName })
  if (signup.status !== 200) throw new Error(`sign-up failed: ${JSON.stringify(signup.body)}`)
  const verify = await call((await mailbox.next(email)).links[0]!)
  if (verify.status !== 200) throw new Error(`verification failed: ${JSON.stringify(verify.body)}`)
  return login(gw, email, password)
}

export async function login(gw: AccountsGateway, email: string, password: string): Promise<Session> {
  const res = await post(`${gw.url}/api/auth/login`, { email, password })
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`)
  return sessionOf(email, password, res.body)
}

export function sessionOf(email: string, password: string, body: any): Session {
  return {
    email,
    password,
    userId: body.user.id,
    organizationId: body.user.organization_id,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    headers: bearer(body.access_token),
  }
}

/** The inviter invites the address with a role; the invitee accepts with a password and is signed in. */
export async function invitedMember(gw: AccountsGateway, mailbox: Mailbox, inviter: Session, email: string, role: 'admin' | 'member'): Promise<Session> {
  const invite = await post(`${gw.url}/api/orgs/me/invitations`, { email, role }, inviter.headers)
  if (invite.status !== 201) throw new Error(`invitation failed: ${JSON.stringify(invite.body)}`)
  const password = `pw-of-${email}`
  const accepted = await post(`${gw.url}/api/orgs/invitations/accept`, { token: tokenOf((await mailbox.next(email)).links[0]!), password })
  if (accepted.status !== 200) throw new Error(`accepting failed: ${JSON.stringify(accepted.body)}`)
  return sessionOf(email, password, accepted.body)
}

/** The test once per store, its name suffixed with the store's; `fn` starts its gateways on that store. */
export function testOnEachStore(t: Test, name: string, fn: (t: Test, store: StoreKind) => Promise<void>): void {
  for (const store of STORE_KINDS) t.test(`${name} (${store})`, { skip: skipWithout(store) }, (t) => fn(t, store))
}
