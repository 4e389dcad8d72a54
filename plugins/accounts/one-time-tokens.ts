// Single-use tokens mailed to a user: e-mail verification, magic-link sign-in, invitations.
// Taking one removes it in the same transaction that reads it, so two concurrent uses cannot both
// succeed, and a token of one kind is never accepted as another.
import type { PluginStore } from '../../proxy/store.ts'
import { newOpaqueToken, tokenDigest } from './opaque-token.ts'
import type { Role } from './roles.ts'

export type OneTimePayload =
  /** The password of the sign-up that mailed it, so verifying sets the password its owner chose. */
  | { readonly kind: 'verify'; readonly userId: string; readonly passwordHash: string }
  | { readonly kind: 'magic'; readonly userId: string }
  | { readonly kind: 'invite'; readonly organizationId: string; readonly email: string; readonly role: Role; readonly invitedBy: string }

type Stored = OneTimePayload & { readonly expiresAt: number }
type Kind = OneTimePayload['kind']

export interface OneTimeTokens {
  issue(payload: OneTimePayload, expiresAt: number): Promise<string>
  /** The payload, if the token exists, is of this kind and has not expired; never modifies. */
  peek<K extends Kind>(kind: K, token: string, now: number): Extract<OneTimePayload, { kind: K }> | undefined
  /** In a transaction: like peek, and removes the token when it is of this kind. */
  take<K extends Kind>(kind: K, token: string, now: number): Extract<OneTimePayload, { kind: K }> | undefined
  /** Drops expired tokens; run at start. */
  removeExpired(now: number): Promise<void>
}

export function openOneTimeTokens(store: PluginStore): OneTimeTokens {
  const tokens = store.open<Stored>('one-time-tokens')
  const find = <K extends Kind>(kind: K, digest: string, now: number) => {
    const stored = tokens.get(digest)
    if (stored === undefined || stored.kind !== kind) return undefined
    return { stored: stored as Extract<Stored, { kind: K }>, live: stored.expiresAt > now }
  }
  const payloadOf = <K extends Kind>(stored: Extract<Stored, { kind: K }>) => {
    const { expiresAt: _expiresAt, ...payload } = stored
    return payload as unknown as Extract<OneTimePayload, { kind: K }>
  }
  return {
    async issue(payload, expiresAt) {
      const token = newOpaqueToken()
      await tokens.put(tokenDigest(token), { ...payload, expiresAt })
      return token
    },
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
    async removeExpired(now) {
      await store.transaction(() => {
        for (const { key, value } of tokens.getRange()) if (value.expiresAt <= now) tokens.remove(key)
      })
    },
  }
}
