// Keys are stored only as HMAC-SHA256 under a server secret: a stolen store does not yield
// usable keys, and without the secret the hashes cannot be brute-forced offline.
import { createHmac, timingSafeEqual } from 'node:crypto'

export function hashKey(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key).digest('hex')
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
