// Webhooks and deliveries in PostgreSQL, shared by every gateway on DATABASE_URL. Events come
// from the shared outbox: one transaction takes them (FOR UPDATE SKIP LOCKED) and inserts their
// deliveries, so each event is fanned out once whichever gateway takes it. A delivery is claimed
// in a transaction of its own (FOR UPDATE SKIP LOCKED again): the claim token and the end of its
// lease are committed before the attempt is sent, and its outcome is recorded only while the
// token is still the delivery's. Gateways claiming at once take different deliveries; a claim
// whose gateway died is taken again once its lease runs out.
import type { Logger } from 'pino'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { GatewayEvent, SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { Listener } from '../../../../proxy/stores/database-listener.ts'
import { planClaims } from '../../logic/claim-plan.ts'
import { abandonedDelivery, claimedDelivery, isStillClaimed, newDelivery, settledDelivery } from '../../logic/delivery-states.ts'
import { afterFinished, disabledAlert } from '../../logic/failure-streak.ts'
import type { NewId } from '../../ids.ts'
import type { DeliveryRecord, WebhookRecord } from '../records.ts'
import type { KeepOnce, SecretBox } from '../../logic/secret-box.ts'
import { changedWebhook, isSubscribed, newWebhook } from '../../logic/webhooks.ts'
import type { Claim, Settled, WebhookStore } from '../webhook-store.ts'

interface PostgresWebhookOptions {
  readonly sharedEvents: SharedEventOutbox
  readonly box: SecretBox
  readonly clock: Clock
  readonly newId: NewId
  readonly log: Logger
}

// Due deliveries locked per claiming pass. Other gateways skip the rows a pass has locked until
// it commits, so a pass locks a bounded batch, not every due delivery.
const SCAN_LIMIT = 100

interface Recorded<R> {
  record: R
}

/** Inserts deliveries, or writes them anew with their index columns. */
async function writeDeliveries(sql: Sql, records: readonly DeliveryRecord[]): Promise<void> {
  if (records.length === 0) return
  await sql.query(
    `INSERT INTO webhooks_deliveries (id, webhook_id, due_at, finished_at, claim, record)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::json[])
     ON CONFLICT (id) DO UPDATE SET due_at = excluded.due_at, finished_at = excluded.finished_at, claim = excluded.claim, record = excluded.record`,
    [
      records.map((r) => r.id),
      records.map((r) => r.webhookId),
      records.map((r) => r.dueAt),
      records.map((r) => r.finishedAt),
      records.map((r) => r.claim),
      records.map((r) => JSON.stringify(r)),
    ],
  )
}

async function writeHook(sql: Sql, record: WebhookRecord): Promise<void> {
  await sql.query('UPDATE webhooks_hooks SET record = $2 WHERE id = $1', [record.id, record])
}

/** A value made once for every gateway on the database, such as the key that seals webhook secrets. */
export function keepOnceIn(database: PluginDatabase): KeepOnce {
  return async (entry, make) => {
    await database.query('INSERT INTO webhooks_meta (entry, value) VALUES ($1, $2) ON CONFLICT (entry) DO NOTHING', [entry, make()])
    return (await database.query<{ value: string }>('SELECT value FROM webhooks_meta WHERE entry = $1', [entry])).rows[0]!.value
  }
}

/** Call after `database.migrate(webhookMigrations)`. */
export function postgresWebhookStore(database: PluginDatabase, options: PostgresWebhookOptions): WebhookStore {
  const { sharedEvents, box, clock, newId } = options
  const listeners: Array<Promise<Listener | undefined>> = []

  async function hookIn(sql: Sql, projectId: string, id: string, lock: '' | 'FOR KEY SHARE' | 'FOR NO KEY UPDATE' = ''): Promise<WebhookRecord | undefined> {
    const found = await sql.query<Recorded<WebhookRecord>>(`SELECT record FROM webhooks_hooks WHERE id = $1 AND project_id = $2 ${lock}`, [id, projectId])
    return found.rows[0]?.record
  }

  /** Inside the transaction that took `events`: a delivery for each active webhook subscribed to one. */
  async function fanOutIn(sql: Sql, events: readonly GatewayEvent[], now: number): Promise<void> {
    if (events.length === 0) return
    const projects = [...new Set(events.map((event) => event.project_id))]
    const found = await sql.query<Recorded<WebhookRecord>>('SELECT record FROM webhooks_hooks WHERE project_id = ANY($1) ORDER BY id', [projects])
    const active = found.rows.map((row) => row.record).filter((hook) => hook.active)
    const made = events.flatMap((event) =>
      active
        .filter((hook) => hook.projectId === event.project_id && isSubscribed(hook, event.type))
        .map((hook) => newDelivery(newId('dlv_'), hook, event, now)),
    )
    await writeDeliveries(sql, made)
    // Every gateway wakes to claim a share of them.
    if (made.length > 0) await sql.query('SELECT pg_notify($1, $2)', [database.channel, ''])
  }

  return {
    async createWebhook(input) {
      const record = newWebhook(newId('wh_'), input, box, clock.now())
      await database.query('INSERT INTO webhooks_hooks (id, project_id, record) VALUES ($1, $2, $3)', [record.id, record.projectId, record])
      return record
    },
    async webhook(projectId, id) {
      return hookIn(database, projectId, id)
    },
    async webhooks(projectId) {
      return (await database.query<Recorded<WebhookRecord>>('SELECT record FROM webhooks_hooks WHERE project_id = $1 ORDER BY id', [projectId])).rows.map(
        (row) => row.record,
      )
    },
    updateWebhook: (projectId, id, changes) =>
      database.transaction(async (sql) => {
        const current = await hookIn(sql, projectId, id, 'FOR NO KEY UPDATE')
        if (current === undefined) return undefined
        const next = changedWebhook(current, changes, box)
        await writeHook(sql, next)
        return next
      }),
    removeWebhook: (projectId, id) =>
      database.transaction(async (sql) => {
        // Deliveries first: a settlement locks its delivery, then the webhook; taking them in the
        // same order cannot deadlock against it.
        const found = await sql.query('SELECT 1 FROM webhooks_hooks WHERE id = $1 AND project_id = $2', [id, projectId])
        if (found.rowCount === 0) return false
        await sql.query('DELETE FROM webhooks_deliveries WHERE webhook_id = $1', [id])
        return (await sql.query('DELETE FROM webhooks_hooks WHERE id = $1 AND project_id = $2', [id, projectId])).rowCount === 1
      }),

    async delivery(id) {
      return (await database.query<Recorded<DeliveryRecord>>('SELECT record FROM webhooks_deliveries WHERE id = $1', [id])).rows[0]?.record
    },
    async recentDeliveries(webhookId, limit) {
      const found = await database.query<Recorded<DeliveryRecord>>('SELECT record FROM webhooks_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2', [
        webhookId,
        limit,
      ])
      return found.rows.map((row) => row.record)
    },
    queue: (projectId, webhookId, event, now, test) =>
      database.transaction(async (sql) => {
        const hook = await hookIn(sql, projectId, webhookId, 'FOR KEY SHARE')
        if (hook === undefined) return 'missing' as const
        if (!hook.active) return 'inactive' as const
        const record = newDelivery(newId('dlv_'), hook, event, now, test)
        await writeDeliveries(sql, [record])
        return record
      }),
    queueClaimed: (projectId, webhookId, event, now, timeoutMs) =>
      database.transaction(async (sql): Promise<Claim | undefined> => {
        const hook = await hookIn(sql, projectId, webhookId, 'FOR KEY SHARE')
        if (hook === undefined) return undefined
        const before = newDelivery(newId('dlv_'), hook, event, now, true)
        const claimed = claimedDelivery(before, now, timeoutMs)
        await writeDeliveries(sql, [claimed])
        return { hook, before, claimed }
      }),

    fanOut: (limit, now) =>
      database.transaction(async (sql) => {
        const events = await sharedEvents.take(sql, limit)
        await fanOutIn(sql, events, now)
        return events.length
      }),
    claimDue: (now, timeoutMs, limits) =>
      database.transaction(async (sql) => {
        const perHook = new Map<string, number>()
        for (const webhookId of limits.inFlight.values()) perHook.set(webhookId, (perHook.get(webhookId) ?? 0) + 1)
        // Webhooks at their cap here are left to the other gateways.
        const capped = [...perHook].filter(([, held]) => held >= limits.perWebhookConcurrency).map(([id]) => id)
        const due = await sql.query<Recorded<DeliveryRecord>>(
          `SELECT record FROM webhooks_deliveries
         WHERE due_at <= $1 AND NOT (webhook_id = ANY($2)) AND NOT (id = ANY($3))
         ORDER BY due_at, id LIMIT $4 FOR UPDATE SKIP LOCKED`,
          [now, capped, [...limits.inFlight.keys()], SCAN_LIMIT],
        )
        if (due.rows.length === 0) return { claims: [], abandoned: 0 }
        const records = due.rows.map((row) => row.record)
        const hooks = await sql.query<Recorded<WebhookRecord>>('SELECT record FROM webhooks_hooks WHERE id = ANY($1)', [
          [...new Set(records.map((r) => r.webhookId))],
        ])
        const byId = new Map(hooks.rows.map((row) => [row.record.id, row.record]))
        const plan = planClaims(records, (id) => byId.get(id), limits)
        const claims = plan.take.map(({ record, hook }): Claim => ({ hook, before: record, claimed: claimedDelivery(record, now, timeoutMs) }))
        await writeDeliveries(sql, [
          ...claims.map((claim) => claim.claimed),
          ...plan.abandon.map(({ record, reason }) => abandonedDelivery(record, now, reason)),
        ])
        return { claims, abandoned: plan.abandon.length }
      }),
    settle: (claim, result, now, disableAfterFailures) =>
      database.transaction(async (sql): Promise<Settled> => {
        const found = await sql.query<Recorded<DeliveryRecord>>('SELECT record FROM webhooks_deliveries WHERE id = $1 FOR UPDATE', [claim.claimed.id])
        const current = found.rows[0]?.record
        if (!isStillClaimed(current, claim.claimed)) return {}
        const settled = settledDelivery(current, result, now)
        await writeDeliveries(sql, [settled.record])
        if (settled.record.test || settled.settlement === 'retrying') return { settled }
        // The webhook's row lock serializes the streak across gateways settling its deliveries at once.
        const hook = await hookIn(sql, claim.hook.projectId, claim.hook.id, 'FOR NO KEY UPDATE')
        const next = afterFinished(hook, settled.settlement, disableAfterFailures)
        if (next === undefined) return { settled }
        await writeHook(sql, next)
        if (next.active) return { settled }
        await sharedEvents.emit(sql, 'alert.created', next.projectId, disabledAlert(next, newId))
        return { settled, disabled: next }
      }),
    release: (claim) =>
      database.transaction(async (sql) => {
        const found = await sql.query<Recorded<DeliveryRecord>>('SELECT record FROM webhooks_deliveries WHERE id = $1 FOR UPDATE', [claim.claimed.id])
        if (isStillClaimed(found.rows[0]?.record, claim.claimed)) await writeDeliveries(sql, [claim.before])
      }),
    async prune(before, limit) {
      await database.query(
        `DELETE FROM webhooks_deliveries WHERE id IN (
           SELECT id FROM webhooks_deliveries WHERE finished_at < $1 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
         )`,
        [before, limit],
      )
    },
    async pendingCount() {
      return (await database.query<{ pending: number }>('SELECT count(*)::int AS pending FROM webhooks_deliveries WHERE due_at IS NOT NULL')).rows[0]!.pending
    },
    onEvents(listener) {
      sharedEvents.onEmit(listener)
      listeners.push(
        database.listen({ onNotification: listener, onConnected: async () => listener() }).catch((err: unknown) => {
          options.log.warn({ err }, 'cannot listen for new webhook deliveries; they are found by polling')
          return undefined
        }),
      )
    },
    async close() {
      await Promise.all(listeners.map(async (listening) => (await listening)?.close()))
    },
  }
}
