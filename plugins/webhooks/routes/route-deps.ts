// What the webhook endpoints share: their dependencies, and the rule that a caller sees only its
// project's webhooks (another project's webhook is 404, as if it did not exist).
import type { Clock } from '../../../proxy/kit/clock.ts'
import { NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { NewId } from '../ids.ts'
import type { WebhookRecord } from '../store/records.ts'
import type { AttemptRunner } from '../run-attempt.ts'
import type { TargetPolicy } from './target-check.ts'
import type { WebhookStore } from '../store/webhook-store.ts'

export interface RouteDeps {
  readonly store: WebhookStore
  readonly clock: Clock
  readonly newId: NewId
  readonly targetPolicy: TargetPolicy
  readonly runAttempt: AttemptRunner
  readonly timeoutMs: number
  /** Tells the delivery worker there is something to send. */
  readonly wakeWorker: () => void
}

export function webhookNotFound(id: string): NotFoundError {
  return new NotFoundError(`No webhook ${id} in this project.`)
}

export async function ownWebhook(store: WebhookStore, projectId: string, id: string): Promise<WebhookRecord> {
  const record = await store.webhook(projectId, id)
  if (record === undefined) throw webhookNotFound(id)
  return record
}
