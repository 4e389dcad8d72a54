// Webhooks and deliveries in LMDB, for one host (the processes of `--workers N` share it). Each
// operation is one LMDB write transaction, which LMDB serializes across processes: an event is
// fanned out and a delivery claimed by one worker only.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { planClaims } from '../../logic/claim-plan.ts'
import { createDeliveryRecords } from './delivery-records.ts'
import { fanOut } from './fan-out.ts'
import { afterFinished, disabledAlert } from '../../logic/failure-streak.ts'
import type { NewId } from '../../ids.ts'
import { openWebhookDatabases } from './databases.ts'
import type { SecretBox } from '../../logic/secret-box.ts'
import { createWebhookRecords } from './webhook-records.ts'
import type { Claim, Settled, WebhookStore } from '../webhook-store.ts'

// Due deliveries looked at per pass; deliveries of webhooks at their concurrency cap are skipped.
const SCAN_LIMIT = 1000

export function lmdbWebhookStore(store: PluginStore, events: EventOutbox, box: SecretBox, clock: Clock, newId: NewId): WebhookStore {
  const db = openWebhookDatabases(store)
  const hooks = createWebhookRecords(db, box, clock, newId)
  const deliveries = createDeliveryRecords(db, newId)
  return {
    createWebhook: (input) => store.transaction(() => hooks.create(input)),
    webhook: async (projectId, id) => hooks.inProject(projectId, id),
    webhooks: async (projectId) => hooks.list(projectId),
    updateWebhook: (projectId, id, changes) =>
      store.transaction(() => {
        const current = hooks.inProject(projectId, id)
        return current === undefined ? undefined : hooks.update(current, changes)
      }),
    removeWebhook: (projectId, id) =>
      store.transaction(() => {
        const current = hooks.inProject(projectId, id)
        if (current === undefined) return false
        hooks.remove(current)
        deliveries.removeAllOf(id)
        return true
      }),

    delivery: async (id) => deliveries.get(id),
    recentDeliveries: async (webhookId, limit) => deliveries.recent(webhookId, limit),
    queue: (projectId, webhookId, event, now, test) =>
      store.transaction(() => {
        const hook = hooks.inProject(projectId, webhookId)
        if (hook === undefined) return 'missing' as const
        if (!hook.active) return 'inactive' as const
        return deliveries.add(hook, event, now, test)
      }),
    queueClaimed: (projectId, webhookId, event, now, timeoutMs) =>
      store.transaction((): Claim | undefined => {
        const hook = hooks.inProject(projectId, webhookId)
        if (hook === undefined) return undefined
        const before = deliveries.add(hook, event, now, true)
        return { hook, before, claimed: deliveries.claim(before, now, timeoutMs) }
      }),

    fanOut: (limit, now) => fanOut(store, events, hooks, deliveries, now, limit),
    claimDue: (now, timeoutMs, limits) =>
      store.transaction(() => {
        const plan = planClaims(deliveries.dueBy(now, SCAN_LIMIT), (id) => hooks.byId(id), limits)
        for (const { record, reason } of plan.abandon) deliveries.abandon(record, now, reason)
        const claims = plan.take.map(({ record, hook }): Claim => ({ hook, before: record, claimed: deliveries.claim(record, now, timeoutMs) }))
        return { claims, abandoned: plan.abandon.length }
      }),
    settle: (claim, result, now, disableAfterFailures) =>
      store.transaction((): Settled => {
        const settled = deliveries.settle(claim.claimed, result, now)
        if (settled === undefined || settled.record.test || settled.settlement === 'retrying') return { settled }
        const next = afterFinished(hooks.byId(claim.hook.id), settled.settlement, disableAfterFailures)
        if (next === undefined) return { settled }
        hooks.put(next)
        if (next.active) return { settled }
        events.emit('alert.created', next.projectId, disabledAlert(next, newId))
        return { settled, disabled: next }
      }),
    release: (claim) => store.transaction(() => deliveries.release(claim.claimed, claim.before)),
    prune: (before, limit) => store.transaction(() => deliveries.prune(before, limit)),
    pendingCount: async () => deliveries.pendingCount(),
    onEvents: (listener) => events.onEmit(listener),
    close: async () => undefined,
  }
}
