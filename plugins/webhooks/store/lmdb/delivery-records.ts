// Deliveries and their indexes. Every change goes through `write`, which keeps the `due`,
// `finished` and per-webhook indexes in step with the record. Writers run inside the caller's
// store transaction; LMDB serializes those across processes, so a claim is taken by one worker only.
import type { GatewayEvent } from '../../../../proxy/stores/events/index.ts'
import {
  abandonedDelivery,
  claimedDelivery,
  isStillClaimed,
  newDelivery,
  settledDelivery,
  type AttemptResult,
  type Settlement,
} from '../../logic/delivery-states.ts'
import type { NewId } from '../../ids.ts'
import type { DeliveryRecord, WebhookRecord } from '../records.ts'
import { prefixRange, timeKey, type WebhookDatabases } from './databases.ts'

/** The key of a delivery in a time-ordered index (`due`, `finished`). */
const timeIndexKey = (ms: number, id: string) => `${timeKey(ms)}/${id}`

export function createDeliveryRecords(db: WebhookDatabases, newId: NewId) {
  const { deliveries, due, hookDeliveries, finished } = db

  function write(next: DeliveryRecord, previous: DeliveryRecord | undefined): void {
    if (previous?.dueAt != null && previous.dueAt !== next.dueAt) due.remove(timeIndexKey(previous.dueAt, next.id))
    if (next.dueAt !== null && previous?.dueAt !== next.dueAt) due.put(timeIndexKey(next.dueAt, next.id), next.id)
    if (previous?.finishedAt != null && previous.finishedAt !== next.finishedAt) finished.remove(timeIndexKey(previous.finishedAt, next.id))
    if (next.finishedAt !== null && previous?.finishedAt !== next.finishedAt) finished.put(timeIndexKey(next.finishedAt, next.id), next.id)
    if (previous === undefined) hookDeliveries.put(`${next.webhookId}/${next.id}`, next.id)
    deliveries.put(next.id, next)
  }

  function erase(record: DeliveryRecord): void {
    if (record.dueAt !== null) due.remove(timeIndexKey(record.dueAt, record.id))
    if (record.finishedAt !== null) finished.remove(timeIndexKey(record.finishedAt, record.id))
    hookDeliveries.remove(`${record.webhookId}/${record.id}`)
    deliveries.remove(record.id)
  }

  return {
    /** Inside a transaction: a pending delivery of `event` to `hook`, due at `now`. */
    add(hook: WebhookRecord, event: GatewayEvent, now: number, test = false): DeliveryRecord {
      const record = newDelivery(newId('dlv_'), hook, event, now, test)
      write(record, undefined)
      return record
    },

    /** Deliveries whose due time has come, soonest first: pending ones, and claims whose lease ran out. */
    dueBy(now: number, limit: number): DeliveryRecord[] {
      return [...due.getRange({ end: `${timeKey(now)}0`, limit })].flatMap(({ value }) => deliveries.get(value) ?? [])
    },

    /** Inside a transaction: takes the delivery for one attempt whose deadline is `timeoutMs`. */
    claim(record: DeliveryRecord, now: number, timeoutMs: number): DeliveryRecord {
      const next = claimedDelivery(record, now, timeoutMs)
      write(next, record)
      return next
    },

    /**
     * Inside a transaction: records a claimed attempt's result and schedules the next attempt,
     * or finishes the delivery. Undefined when the claim is no longer held (its lease ran out and
     * another worker took the delivery, or the webhook was deleted).
     */
    settle(claimed: DeliveryRecord, result: AttemptResult, now: number): { record: DeliveryRecord; settlement: Settlement } | undefined {
      const current = deliveries.get(claimed.id)
      if (!isStillClaimed(current, claimed)) return undefined
      const settled = settledDelivery(current, result, now)
      write(settled.record, current)
      return settled
    },

    /** Inside a transaction: gives a claim back unattempted (the process is stopping). */
    release(claimed: DeliveryRecord, before: DeliveryRecord): void {
      const current = deliveries.get(claimed.id)
      if (isStillClaimed(current, claimed)) write(before, current)
    },

    /** Inside a transaction: ends a delivery that will not be attempted. */
    abandon(record: DeliveryRecord, now: number, reason: string): void {
      write(abandonedDelivery(record, now, reason), record)
    },

    get(id: string): DeliveryRecord | undefined {
      return deliveries.get(id)
    },

    /** A webhook's deliveries, newest first. */
    recent(webhookId: string, limit: number): DeliveryRecord[] {
      const { start, end } = prefixRange(webhookId)
      return [...hookDeliveries.getRange({ start: end, end: start, reverse: true, limit })].flatMap(({ value }) => deliveries.get(value) ?? [])
    },

    /** Inside a transaction. */
    removeAllOf(webhookId: string): void {
      const ids = [...hookDeliveries.getRange(prefixRange(webhookId))].map(({ value }) => value)
      for (const id of ids) {
        const record = deliveries.get(id)
        if (record !== undefined) erase(record)
      }
    },

    /** Inside a transaction: removes up to `limit` deliveries finished before `before`. */
    prune(before: number, limit: number): void {
      for (const { key, value } of [...finished.getRange({ end: `${timeKey(before)}/`, limit })]) {
        const record = deliveries.get(value)
        if (record === undefined) finished.remove(key)
        else erase(record)
      }
    },

    /** Deliveries not finished, across every process on the store. */
    pendingCount(): number {
      return due.getKeysCount()
    },
  }
}

export type DeliveryRecords = ReturnType<typeof createDeliveryRecords>
