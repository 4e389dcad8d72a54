// The event outbox on PostgreSQL, for gateways that share DATABASE_URL. A plugin records an event
// with the transaction that makes the change, so both commit together or not at all. A consumer
// takes events inside its own transaction with FOR UPDATE SKIP LOCKED and deletes them there:
// gateways taking at once get different events, and an event is gone once its consumer commits.
import type { Logger } from 'pino'
import type { Clock } from '../../kit/clock.ts'
import type { PluginDatabase } from '../database.ts'
import type { Listener } from '../database-listener.ts'
import { eventId, type GatewayEvent, type SharedEventOutbox } from './index.ts'

const MIGRATIONS = [
  {
    version: 1,
    // json, not jsonb: an event is sent as it was emitted, its keys in their order.
    sql: `CREATE TABLE core_events (id text PRIMARY KEY, event json NOT NULL)`,
  },
]

/** `database` is the core's own handle (`forPlugin('core')`): the table and channel are the core's. */
export async function openSharedEvents(database: PluginDatabase, clock: Clock, log: Logger): Promise<SharedEventOutbox> {
  await database.migrate(MIGRATIONS)
  const listeners: Array<() => void> = []
  const announce = () => {
    for (const listener of listeners) listener()
  }
  let listening: Promise<Listener | undefined> | undefined
  return {
    async emit(sql, type, projectId, data) {
      const now = clock.now()
      const event: GatewayEvent = { id: eventId(now), type, timestamp: new Date(now).toISOString(), project_id: projectId, data }
      await sql.query('INSERT INTO core_events (id, event) VALUES ($1, $2)', [event.id, event])
      // Notifications of one transaction with the same payload arrive once, at commit.
      await sql.query('SELECT pg_notify($1, $2)', [database.channel, ''])
      return event
    },
    async take(sql, limit) {
      const taken = await sql.query<{ event: GatewayEvent }>(
        `DELETE FROM core_events WHERE id IN (SELECT id FROM core_events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING event`,
        [limit],
      )
      return taken.rows.map((row) => row.event).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    },
    onEmit(next) {
      listeners.push(next)
      listening ??= database.listen({ onNotification: announce, onConnected: async () => announce() }).catch((err: unknown) => {
        log.warn({ err }, 'cannot listen for shared events; they are found by polling')
        return undefined
      })
    },
    async close() {
      await (await listening)?.close()
    },
  }
}
