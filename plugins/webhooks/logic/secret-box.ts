// Webhook secrets at rest: AES-256-GCM, bound to the webhook's id so a sealed secret copied onto
// another record does not open. The key comes from the config (`encryptionKey`), or is generated
// once and kept beside the webhooks (LMDB, or PostgreSQL so that every gateway opens what another
// sealed), which keeps secrets out of record dumps but not from someone who holds the whole
// store; configure the key to separate the two.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

export interface SecretBox {
  seal(secret: string, webhookId: string): string
  open(sealed: string, webhookId: string): string
}

/** The value kept under `entry`, made by `make` and kept when there is none yet; the first writer wins. */
export type KeepOnce = (entry: string, make: () => string) => Promise<string>

async function loadKey(keepOnce: KeepOnce, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return createHash('sha256').update(configured, 'utf8').digest()
  return Buffer.from(await keepOnce('secret-key', () => randomBytes(32).toString('base64')), 'base64')
}

export async function createSecretBox(keepOnce: KeepOnce, configured: string | undefined): Promise<SecretBox> {
  const key = await loadKey(keepOnce, configured)
  return {
    seal(secret, webhookId) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(webhookId, 'utf8'))
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.')
    },
    open(sealed, webhookId) {
      const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'))
      if (iv === undefined || tag === undefined || data === undefined) throw new Error('malformed sealed secret')
      const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(webhookId, 'utf8'))
      decipher.setAuthTag(tag)
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')
    },
  }
}
