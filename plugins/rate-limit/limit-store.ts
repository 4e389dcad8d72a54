// Where a key's limit state lives: in this process, in the LMDB store shared by the processes of
// one host (tollgate serve --workers N), or in Redis shared by every host (redis-limits.ts). Each
// reads, decides with checkLimits and writes as one step, so concurrent requests never both take
// the last token.
import type { PluginStore } from '../../proxy/stores/store.ts'
import { checkLimits, type KeyLimitState, type LimitVerdict } from './check-limits.ts'
import type { PlanLimits } from './schema.ts'

export interface LimitStore {
  /** The verdict for one more request of keyId at nowMs, undefined when its limits are unlimited. */
  check(keyId: string, limits: PlanLimits, nowMs: number): LimitVerdict | undefined | Promise<LimitVerdict | undefined>
}

export function memoryLimitStore(): LimitStore {
  const states = new Map<string, KeyLimitState>()
  return {
    check(keyId, limits, nowMs) {
      const verdict = checkLimits(limits, states.get(keyId), nowMs)
      if (verdict !== undefined) states.set(keyId, verdict.next)
      return verdict
    },
  }
}

export function lmdbLimitStore(store: PluginStore): LimitStore {
  const states = store.open<KeyLimitState>('key-state')
  return {
    // One transaction: LMDB serializes it against the other processes on the store.
    check: (keyId, limits, nowMs) => store.transaction(() => {
      const verdict = checkLimits(limits, states.get(keyId), nowMs)
      if (verdict !== undefined) states.put(keyId, verdict.next)
      return verdict
    }),
  }
}
