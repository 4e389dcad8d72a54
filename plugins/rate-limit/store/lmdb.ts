// Limit state in the LMDB store shared by the processes of one host (tollgate serve --workers N).
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { checkLimits, type KeyLimitState } from '../logic/check-limits.ts'
import type { LimitStore } from './index.ts'

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
