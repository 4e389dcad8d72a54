// Where a key's limit state lives: in this process (memory.ts), in the LMDB store shared by the
// processes of one host (lmdb.ts, tollgate serve --workers N), or in Redis shared by every host
// (redis.ts). Each reads, decides with checkLimits and writes as one step, so concurrent requests
// never both take the last token.
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import type { LimitVerdict } from '../logic/check-limits.ts'
import type { PlanLimits, RateLimitConfig } from '../schema.ts'
import { lmdbLimitStore } from './lmdb.ts'
import { memoryLimitStore } from './memory.ts'
import { redisLimitStore } from './redis.ts'

export interface LimitStore {
  /** The verdict for one more request of keyId at nowMs, undefined when its limits are unlimited. */
  check(keyId: string, limits: PlanLimits, nowMs: number): LimitVerdict | undefined | Promise<LimitVerdict | undefined>
}

/** Redis when REDIS_URL is set, else the LMDB store when `shared`, else memory. */
export function openLimits({ store, redis }: Pick<PluginDeps, 'store' | 'redis'>, config: Pick<RateLimitConfig, 'shared'>): LimitStore {
  if (redis !== undefined) return redisLimitStore(redis)
  return config.shared ? lmdbLimitStore(store) : memoryLimitStore()
}
