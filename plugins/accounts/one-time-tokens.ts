// Single-use tokens mailed to a user: e-mail verification, magic-link sign-in, invitations.
// Taking one removes it in the same transaction (LMDB) or statement (PostgreSQL) that reads it, so
// two concurrent uses cannot both succeed, and a token of one kind is never accepted as another.
import type { PluginStore } from '../../proxy/stores/store.ts'
import { newOpaqueToken, tokenDigest } from './opaque-token.ts'
import type { Role } from './roles.ts'

export type OneTimePayload =
  /** The password of the sign-up that mailed it, so verifying sets the password its owner chose. */
  | { readonly kind: 'verify'; readonly userId: string; readonly passwordHash: string }
  | { readonly kind: 'magic'; readonly userId: string }
  | { readonly kind: 'invite'; readonly organizationId: string; readonly email: string; readonly role: Role; readonly invitedBy: string }

type Stored = OneTimePayload & { readonly expiresAt: number }
type Kind = OneTimePayload['kind']

export type PayloadOf<K extends Kind> = Extract<OneTimePayload, { kind: K }>

export interface OneTimeTokens {
  issue(payload: OneTimePayload, expiresAt: number): Promise<string>
  /** The payload, if the token exists, is of this kind and has not expired; never modifies. */
  peek<K extends Kind>(kind: K, token: string, now: number): Promise<PayloadOf<K> | undefined>
  /** Like peek, and removes the token when it is of this kind. */
  take<K extends Kind>(kind: K, token: string, now: number): Promise<PayloadOf<K> | undefined>
  /** Drops expired tokens; run at start. */
  removeExpired(now: number): Promise<void>
}

export interface OneTimeTokenRecords {
  peek<K extends Kind>(kind: K, token: string, now: number): PayloadOf<K> | undefined
  /** In a transaction. */
  take<K extends Kind>(kind: K, token: string, now: number): PayloadOf<K> | undefined
}

interface LmdbOneTimeTokens extends OneTimeTokens {
  /** The same, synchronous, for multi-record changes in one transaction. */
  readonly records: OneTimeTokenRecords
}

export function openOneTimeTokens(store: PluginStore): LmdbOneTimeTokens {
  const tokens = store.open<Stored>('one-time-tokens')
  const find = <K extends Kind>(kind: K, digest: string, now: number) => {
    const stored = tokens.get(digest)
    if (stored === undefined || stored.kind !== kind) return undefined
    return { stored: stored as Extract<Stored, { kind: K }>, live: stored.expiresAt > now }
  }
  const payloadOf = <K extends Kind>(stored: Extract<Stored, { kind: K }>) => {
    const { expiresAt: _expiresAt, ...payload } = stored
    return payload as unknown as PayloadOf<K>
  }
  const records: OneTimeTokenRecords = {
    peek(kind, token, now) {
      const found = find(kind, tokenDigest(token), now)
      return found?.live === true ? payloadOf(found.stored) : undefined
    },
    take(kind, token, now) {
      const digest = tokenDigest(token)
      const found = find(kind, digest, now)
      if (found === undefined) return undefined
      tokens.remove(digest)
      return found.live ? payloadOf(found.stored) : undefined
    },
  }
  return {
    records,
    async issue(payload, expiresAt) {
      const token = newOpaqueToken()
      await tokens.put(tokenDigest(token), { ...payload, expiresAt })
      return token
    },
    async peek(kind, token, now) {
      return records.peek(kind, token, now)
    },
    take(kind, token, now) {
      return store.transaction(() => records.take(kind, token, now))
    },
    async removeExpired(now) {
      await store.transaction(() => {
        for (const { key, value } of tokens.getRange()) if (value.expiresAt <= now) tokens.remove(key)
      })
    },
  }
}
