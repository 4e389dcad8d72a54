// Account mail in PostgreSQL. Without an SMTP relay the table is the outbox `tollgate outbox`
// reads, one for every gateway on the database. With one, it is the queue in front of the relay:
// each mail is taken by one gateway (FOR UPDATE SKIP LOCKED), sent, and removed in the same
// transaction, so a mail is sent again only when its sending failed or its gateway died mid-way.
// A mail the relay refuses waits longer after each attempt, so it never holds up the others, and
// is dropped after the last.
import type { Logger } from 'pino'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import { createUlids } from '../../../../proxy/kit/ids.ts'
import type { Mail, Mailer } from '../../logic/mail.ts'
import type { OutboxMessage } from '../outbox.ts'

// Mails one drain sends before it lets the next timer tick go on, so it stays bounded.
const DRAIN_BATCH = 50
// How often each gateway looks for mail another could not send (its relay failed, or it died).
const DRAIN_EVERY_MS = 30_000
const MAX_ATTEMPTS = 10
// The wait after the nth failed attempt is n times this.
const RETRY_STEP_MS = 60_000

export async function listSharedOutbox(sql: Sql, to?: string): Promise<OutboxMessage[]> {
  const wanted = to?.trim().toLowerCase()
  const { rows } = await sql.query<{ message: OutboxMessage }>(
    `SELECT message FROM accounts_outbox WHERE $1::text IS NULL OR recipient = $1 ORDER BY id COLLATE "C"`,
    [wanted ?? null],
  )
  return rows.map((row) => row.message)
}

function queue(database: PluginDatabase, clock: Clock): (mail: Mail) => Promise<void> {
  const nextId = createUlids(clock)
  return async (mail) => {
    const message: OutboxMessage = { ...mail, links: [...mail.links], id: nextId(), sentAt: new Date(clock.now()).toISOString() }
    await database.query('INSERT INTO accounts_outbox (id, recipient, message) VALUES ($1, $2, $3)', [message.id, message.to, message])
  }
}

export function postgresOutboxMailer(database: PluginDatabase, clock: Clock): Mailer {
  return { send: queue(database, clock), async close() {} }
}

/** Queues each mail, then sends what is queued through `relay`; a timer picks up what is left. */
export function postgresRelayMailer(database: PluginDatabase, clock: Clock, relay: Mailer, log: Logger): Mailer {
  const enqueue = queue(database, clock)
  let draining: Promise<void> | undefined
  // Set by every call: mail queued while a drain runs is seen by that drain's next pass.
  let queued = false

  /** Sends, or puts off, the oldest mail due that no other gateway holds; false when there is none. */
  async function sendOne(): Promise<boolean> {
    return database.transaction(async (sql) => {
      const now = clock.now()
      const { rows } = await sql.query<{ id: string; message: OutboxMessage; attempts: number }>(
        'SELECT id, message, attempts FROM accounts_outbox WHERE next_attempt_at <= $1 ORDER BY id COLLATE "C" LIMIT 1 FOR UPDATE SKIP LOCKED',
        [now],
      )
      const taken = rows[0]
      if (taken === undefined) return false
      try {
        await relay.send(taken.message)
      } catch (err) {
        const attempts = taken.attempts + 1
        if (attempts < MAX_ATTEMPTS) {
          log.warn({ err, attempts }, 'account mail not sent; it stays queued and is tried again later')
          await sql.query('UPDATE accounts_outbox SET attempts = $2, next_attempt_at = $3 WHERE id = $1', [taken.id, attempts, now + attempts * RETRY_STEP_MS])
          return true
        }
        log.error({ err, attempts }, 'account mail dropped: the relay refused it at every attempt')
      }
      await sql.query('DELETE FROM accounts_outbox WHERE id = $1', [taken.id])
      return true
    })
  }

  function drain(): Promise<void> {
    queued = true
    draining ??= (async () => {
      try {
        while (queued) {
          queued = false
          let sent = 0
          while (sent < DRAIN_BATCH && (await sendOne())) sent++
        }
      } catch (err) {
        log.error({ err }, 'account mail queue not drained; it is tried again later')
      } finally {
        draining = undefined
      }
    })()
    return draining
  }

  const timer = setInterval(() => void drain(), DRAIN_EVERY_MS)
  timer.unref()
  return {
    async send(mail) {
      await enqueue(mail)
      await drain()
    },
    async close() {
      clearInterval(timer)
      await draining
      await relay.close()
    },
  }
}
