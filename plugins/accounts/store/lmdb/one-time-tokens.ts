// One-time tokens in LMDB, stored by their digest: taking one reads and removes it in one
// transaction.
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { newOpaqueToken, tokenDigest } from '../../logic/opaque-token.ts'
import type { OneTimePayload, OneTimeTokens, PayloadOf } from '../one-time-tokens.ts'

type Stored = OneTimePayload & { readonly expiresAt: number }
type Kind = OneTimePayload['kind']

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
