// The one place that chooses where the webhooks live, at boot: PostgreSQL when the gateway has
// DATABASE_URL (every gateway on it serves the same webhooks and shares their deliveries), else
// this host's LMDB.
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import { storedOnce } from '../../../proxy/stores/stored-once.ts'
import type { NewId } from '../ids.ts'
import { lmdbWebhookStore } from './lmdb/webhook-store.ts'
import { webhookMigrations } from './postgres/schema.ts'
import { keepOnceIn, postgresWebhookStore } from './postgres/webhook-store.ts'
import { createSecretBox, type SecretBox } from '../logic/secret-box.ts'
import type { WebhookStore } from './webhook-store.ts'

export async function openWebhookStore(deps: PluginDeps, encryptionKey: string | undefined, newId: NewId): Promise<{ store: WebhookStore; box: SecretBox }> {
  const { database, sharedEvents, store, events, clock, log } = deps
  if (database === undefined || sharedEvents === undefined) {
    const box = await createSecretBox((entry, make) => storedOnce(store, entry, make), encryptionKey)
    return { box, store: lmdbWebhookStore(store, events, box, clock, newId) }
  }
  await database.migrate(webhookMigrations)
  const box = await createSecretBox(keepOnceIn(database), encryptionKey)
  return { box, store: postgresWebhookStore(database, { sharedEvents, box, clock, newId, log }) }
}
