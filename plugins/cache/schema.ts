import { z } from 'zod'

// Key encodings above this size are hashed in the worker pool. Measured on a 2-core x86-64 with
// SHA extensions, Node 24, crypto.hash("sha256"):
//   inline:    4 KiB 3.1 µs · 16 KiB 9.5 µs · 32 KiB 19 µs · 64 KiB 38 µs · 128 KiB 76 µs · 1 MiB 630 µs
//   pool.run:  round trip 37 µs (≤ 16 KiB), 50 µs at 32 KiB, 75 µs at 64 KiB, 190 µs at 128 KiB;
//              main-thread time per call 13–18 µs up to 64 KiB, 25–35 µs at 128–256 KiB
// Below 64 KiB the inline hash finishes before a pool round trip would and blocks the event loop
// for less than 40 µs; above it, the pool saves the loop more than half of the hashing time.
export const DEFAULT_POOL_THRESHOLD_BYTES = 65_536

export const cacheSchema = z.strictObject({
  /** Off: no request reads or fills the cache. */
  enabled: z.boolean().default(true),
  /** Stored answers kept at most, across projects; the oldest are evicted beyond it. */
  maxEntries: z.number().int().positive().default(100_000),
  /** UTF-8 size of a key's canonical encoding above which it is hashed in the worker pool. */
  poolThresholdBytes: z.number().int().nonnegative().default(DEFAULT_POOL_THRESHOLD_BYTES),
  /**
   * With Redis: how long a miss waits for another gateway's answer to the identical request it is
   * already asking the model, before asking the model itself; 0 turns that coalescing off.
   */
  sharedWaitMs: z.number().int().nonnegative().default(10_000),
})
