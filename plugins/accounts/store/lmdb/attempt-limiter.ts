// Attempt counting in the store, for processes that share it (tollgate serve --workers N): each
// attempt reads, decides and writes in one transaction, which LMDB serializes across processes,
// so the limit holds for all of them together instead of once per process. Keys are stored as
// SHA-256 digests: the data directory never lists the addresses and IPs that were tried.
import { createHash } from 'node:crypto'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { AttemptLimiter } from '../attempt-limiter.ts'
import { decideAttempt, isExpired, type AttemptWindow } from '../../logic/attempt-window.ts'

// Expired windows removed per attempt, oldest first. More than an attempt can open (one per
// key), so the expired backlog only shrinks while attempts arrive.
const SWEEP_PER_ATTEMPT = 16

const digestOf = (key: string) => createHash('sha256').update(key).digest('base64url')

export function createStoreAttemptLimiter(store: PluginStore, clock: Clock): AttemptLimiter {
  const windows = store.open<AttemptWindow>('attempt-windows')
  // [window start, digest] for every stored window, so the expired ones are found first.
  const byStart = store.open<true>('attempt-windows-by-start')

  function sweep(now: number) {
    const expired: Array<[number, string]> = []
    for (const key of byStart.getKeys({ limit: SWEEP_PER_ATTEMPT })) {
      const [start, digest] = key as [number, string]
      if (!isExpired(start, now)) break
      expired.push([start, digest])
    }
    for (const [start, digest] of expired) {
      byStart.remove([start, digest])
      if (windows.get(digest)?.start === start) windows.remove(digest)
    }
  }

  return {
    attempt(keys) {
      const hashed = keys.map(({ key, limit }) => ({ key: digestOf(key), limit }))
      return store.transaction(() => {
        const now = clock.now()
        sweep(now)
        const { attempt, changes } = decideAttempt(hashed, (digest) => windows.get(digest), now)
        for (const { key, window, opened, replaced } of changes) {
          windows.put(key, window)
          if (!opened) continue
          if (replaced !== undefined) byStart.remove([replaced.start, key])
          byStart.put([window.start, key], true)
        }
        return attempt
      })
    },
  }
}
