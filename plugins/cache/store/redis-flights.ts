// Coalesces identical misses across the gateways on one Redis, as in-flight.ts does within one
// process: the first gateway to take a key's short lock (SET NX PX) calls the model, the others
// poll the cache for its answer. The wait is bounded, and ends early when the lock goes without
// an answer (the leader failed, or its answer must not be stored): the request then calls the
// model itself. Redis away: every gateway leads its own misses.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Redis } from 'ioredis'
import type { SharedRedis } from '../../../proxy/stores/redis.ts'
import type { AnswerStore, StoredAnswer } from './index.ts'

export interface SharedFlights {
  /** True when this gateway is to call the model: it took the key's lock, or Redis could not say. */
  tryLead(key: string): Promise<boolean>
  /** The leading gateway's answer once stored; undefined when the lock went without one, the wait ran out or signal aborted. */
  awaitAnswer(key: string, signal: AbortSignal): Promise<StoredAnswer | undefined>
  /** Gives up the key's lock, if this gateway still holds it. */
  release(key: string): Promise<void>
}

const FIRST_POLL_MS = 25
const LONGEST_POLL_MS = 250

// KEYS[1] the lock. ARGV this gateway's token.
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
`

interface ReleaseScript {
  tollgateCacheReleaseLock(lock: string, token: string): Promise<null>
}

export function sharedFlights(redis: SharedRedis, answers: AnswerStore, waitMs: number): SharedFlights {
  redis.client.defineCommand('tollgateCacheReleaseLock', { numberOfKeys: 1, lua: RELEASE_LUA })
  const script = redis.client as Redis & ReleaseScript
  // Tells this gateway's locks from another's, so that none releases a lock it does not hold.
  const token = randomUUID()
  const lockPrefix = `${redis.prefix('cache')}leader:`

  return {
    async tryLead(key) {
      try {
        return (await redis.run((c) => c.set(lockPrefix + key, token, 'PX', waitMs, 'NX'))) === 'OK'
      } catch {
        return true
      }
    },
    async awaitAnswer(key, signal) {
      const deadline = performance.now() + waitMs
      let pause = FIRST_POLL_MS
      try {
        while (performance.now() + pause < deadline) {
          await sleep(pause, undefined, { signal })
          const answer = await answers.get(key)
          if (answer !== undefined) return answer
          if ((await redis.run((c) => c.exists(lockPrefix + key))) === 0) return (await answers.get(key)) ?? undefined
          pause = Math.min(pause * 2, LONGEST_POLL_MS)
        }
      } catch {
        // Aborted, or Redis went away: the request goes on to the model.
      }
      return undefined
    },
    async release(key) {
      await redis.run(() => script.tollgateCacheReleaseLock(lockPrefix + key, token))
    },
  }
}
