// Limit state in the LMDB store shared by the processes of one host (tollgate serve --workers N),
// drawn on through leases (leased.ts): a store transaction per slice of requests, not per request.
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { leaseTokens, type SharedLimitState } from '../logic/token-leases.ts'
import type { LeaseBackend } from './leased.ts'

/** `owner` names this process in the leases it holds (SELF_OWNER). */
export function lmdbLeases(store: PluginStore, owner: string): LeaseBackend {
  const states = store.open<SharedLimitState>('key-state')
  return {
    // One transaction: LMDB serializes it against the other processes on the store.
    lease: (keyId, limits, nowMs, need, unused) =>
      store.transaction(() => {
        const given = unused()
        const grant = leaseTokens(limits, states.get(keyId), nowMs, { owner, need, unused: given.count, unusedDay: given.day })
        states.put(keyId, grant.next)
        return grant
      }),
  }
}
