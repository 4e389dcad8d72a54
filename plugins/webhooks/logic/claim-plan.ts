// Which due deliveries one worker pass takes, whichever store keeps them: at most `slots` in all,
// at most `perWebhookConcurrency` in flight for one webhook in this process, none this process is
// still sending, and those whose webhook is gone or switched off are ended unsent instead.
import type { DeliveryRecord, WebhookRecord } from '../store/records.ts'

export interface ClaimLimits {
  /** Attempts this process may still start. */
  readonly slots: number
  readonly perWebhookConcurrency: number
  /** Deliveries this process is sending, by id, with their webhook's id. */
  readonly inFlight: ReadonlyMap<string, string>
}

interface ClaimPlan {
  readonly take: ReadonlyArray<{ readonly record: DeliveryRecord; readonly hook: WebhookRecord }>
  readonly abandon: ReadonlyArray<{ readonly record: DeliveryRecord; readonly reason: string }>
}

/** `due` soonest first; `hookOf` finds a delivery's webhook, undefined when it was deleted. */
export function planClaims(due: readonly DeliveryRecord[], hookOf: (id: string) => WebhookRecord | undefined, limits: ClaimLimits): ClaimPlan {
  const perHook = new Map<string, number>()
  for (const webhookId of limits.inFlight.values()) perHook.set(webhookId, (perHook.get(webhookId) ?? 0) + 1)
  const take: Array<ClaimPlan['take'][number]> = []
  const abandon: Array<ClaimPlan['abandon'][number]> = []
  for (const record of due) {
    if (take.length >= limits.slots) break
    // Still being sent here: the clock passed its lease, but this process holds it.
    if (limits.inFlight.has(record.id)) continue
    const hook = hookOf(record.webhookId)
    if (hook === undefined || !hook.active) {
      abandon.push({ record, reason: hook === undefined ? 'webhook deleted' : 'webhook inactive' })
      continue
    }
    const held = perHook.get(hook.id) ?? 0
    if (held >= limits.perWebhookConcurrency) continue
    perHook.set(hook.id, held + 1)
    take.push({ record, hook })
  }
  return { take, abandon }
}
