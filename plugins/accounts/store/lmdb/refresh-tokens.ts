// Refresh tokens in LMDB: rotation reads and writes in one transaction, so of two concurrent
// refreshes with one token, exactly one wins.
import { randomUUID } from 'node:crypto'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { newOpaqueToken, tokenDigest } from '../../logic/opaque-token.ts'
import type { RefreshTokens, Rotation } from '../refresh-tokens.ts'

interface StoredToken {
  readonly familyId: string
  readonly userId: string
  readonly rotated: boolean
  readonly expiresAt: number
}

interface Family {
  readonly userId: string
  readonly revoked: boolean
  readonly expiresAt: number
}

export interface LmdbRefreshTokens extends RefreshTokens {
  /** In a transaction: every session of the user, so none comes back if they rejoin. */
  revokeUser(userId: string): void
}

/** `isAllowed` is asked inside the rotation's transaction whether the user may still hold a session. */
export function openRefreshTokens(store: PluginStore, lifetimeMs: number, isAllowed: (userId: string) => boolean): LmdbRefreshTokens {
  const tokens = store.open<StoredToken>('refresh-tokens')
  const families = store.open<Family>('token-families')

  const revoke = (familyId: string) => {
    const family = families.get(familyId)
    if (family !== undefined && !family.revoked) families.put(familyId, { ...family, revoked: true })
  }
  const issueInFamily = (familyId: string, userId: string, now: number) => {
    const token = newOpaqueToken()
    tokens.put(tokenDigest(token), { familyId, userId, rotated: false, expiresAt: now + lifetimeMs })
    return token
  }

  return {
    start(userId, now) {
      return store.transaction(() => {
        const familyId = randomUUID()
        families.put(familyId, { userId, revoked: false, expiresAt: now + lifetimeMs })
        return { token: issueInFamily(familyId, userId, now), familyId }
      })
    },
    rotate(token, now) {
      return store.transaction((): Rotation => {
        const digest = tokenDigest(token)
        const stored = tokens.get(digest)
        if (stored === undefined) return { ok: false, reason: 'unknown' }
        const family = families.get(stored.familyId)
        if (family === undefined || family.revoked) return { ok: false, reason: 'revoked' }
        if (stored.rotated) {
          revoke(stored.familyId)
          return { ok: false, reason: 'reused' }
        }
        if (stored.expiresAt <= now) return { ok: false, reason: 'expired' }
        if (!isAllowed(stored.userId)) {
          revoke(stored.familyId)
          return { ok: false, reason: 'revoked' }
        }
        tokens.put(digest, { ...stored, rotated: true })
        families.put(stored.familyId, { ...family, expiresAt: now + lifetimeMs })
        return { ok: true, token: issueInFamily(stored.familyId, stored.userId, now), familyId: stored.familyId, userId: stored.userId }
      })
    },
    revokeByToken(token) {
      return store.transaction(() => {
        const stored = tokens.get(tokenDigest(token))
        if (stored === undefined) return false
        revoke(stored.familyId)
        return true
      })
    },
    async revokeFamily(familyId) {
      await store.transaction(() => revoke(familyId))
    },
    revokeUser(userId) {
      for (const { key, value } of families.getRange()) if (value.userId === userId) revoke(key as string)
    },
    async isLive(familyId, now) {
      const family = families.get(familyId)
      return family !== undefined && !family.revoked && family.expiresAt > now
    },
    async removeExpired(now) {
      await store.transaction(() => {
        for (const { key, value } of tokens.getRange()) if (value.expiresAt <= now) tokens.remove(key)
        for (const { key, value } of families.getRange()) if (value.expiresAt <= now) families.remove(key)
      })
    },
  }
}
