// Cryptographic randomness drawn from one buffer refilled 4 KB at a time: one call into the
// kernel per few hundred ids, where ulid's default makes one per character (in the governed
// profile, 5.5% of the gateway's CPU went to those calls).
import { randomBytes } from 'node:crypto'

const POOL_BYTES = 4096
let pool = randomBytes(POOL_BYTES)
let offset = 0

function take(bytes: number): number {
  if (offset + bytes > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  const start = offset
  offset += bytes
  return start
}

/** A fraction in [0, 1) in steps of 1/256: uniform over any power-of-two alphabet up to 256 (ulid's is 32). */
export function randomFraction(): number {
  return pool[take(1)]! / 256
}

export function randomHex(bytes: number): string {
  const start = take(bytes)
  return pool.toString('hex', start, start + bytes)
}
