import { z } from 'zod'

export const webhooksSchema = z.strictObject({
  /** Let webhooks reach private, loopback, link-local and other non-public addresses (WEBHOOKS_ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: z.boolean().default(false),
  /** Accept http:// URLs as well as https:// (WEBHOOKS_ALLOW_HTTP). */
  allowHttp: z.boolean().default(false),
  /** Deadline of one delivery attempt: connecting, sending and the receiver's status. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Attempts in flight at once in one process. */
  concurrency: z.number().int().min(1).max(1024).default(16),
  /** Attempts in flight at once for one webhook in one process, so a slow receiver cannot take every slot. */
  perWebhookConcurrency: z.number().int().min(1).max(1024).default(4),
  /** Deliveries ending failed in a row after which a webhook is disabled and an alert.created event raised. */
  disableAfterFailures: z.number().int().min(1).default(20),
  /** How often the worker looks for events emitted by other processes and for due retries. */
  pollIntervalMs: z.number().int().min(10).max(60_000).default(1000),
  /** Outbox events moved into deliveries per transaction. */
  batchSize: z.number().int().min(1).max(10_000).default(100),
  /** Finished deliveries are kept this long for GET …/deliveries and redelivery. */
  retentionDays: z.number().int().min(1).default(30),
  /** Encrypts webhook secrets at rest; without it a key is generated and kept in the store. */
  encryptionKey: z.string().min(32, 'encryptionKey must hold at least 32 characters').optional(),
})

export type WebhooksConfig = z.output<typeof webhooksSchema>
