// Where a key's limit state lives: in this process (memory.ts), in the LMDB store shared by the
// processes of one host (lmdb.ts, tollgate serve --workers N), or in Redis shared by every host
// (redis.ts); the shared two are drawn on through leases (leased.ts). A store never lets two
// processes both take the last token.
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import { SELF_OWNER } from '../../../proxy/stores/process-owner.ts'
import type { LimitVerdict } from '../logic/check-limits.ts'
import type { PlanLimits, RateLimitConfig } from '../schema.ts'
import { leasedLimits } from './leased.ts'
import { lmdbLeases } from './lmdb.ts'
import { memoryLimitStore } from './memory.ts'
import { redisLeases } from './redis.ts'

export interface LimitStore {
  /** The verdict for one more request of keyId at nowMs, undefined when its limits are unlimited. */
  check(keyId: string, limits: PlanLimits, nowMs: number): LimitVerdict | undefined | Promise<LimitVerdict | undefined>
  /** Gives back what this process holds of the shared limits. */
  close?(): Promise<void>
}

/** Redis when REDIS_URL is set, else the LMDB store when `shared`, else memory. */
export function openLimits(deps: Pick<PluginDeps, 'store' | 'redis' | 'clock' | 'track'>, config: Pick<RateLimitConfig, 'shared'>): LimitStore {
  if (deps.redis !== undefined) return leasedLimits(redisLeases(deps.redis, SELF_OWNER), deps)
  return config.shared ? leasedLimits(lmdbLeases(deps.store, SELF_OWNER), deps) : memoryLimitStore()
}
