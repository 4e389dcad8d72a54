// Keys are stored only as HMAC-SHA256 under a server secret: a stolen store does not yield
// usable keys, and without the secret the hashes cannot be brute-forced offline.
import { createHmac, createSecretKey, hash, timingSafeEqual, type KeyObject } from 'node:crypto'

/** Import the secret once: an HMAC keyed by a KeyObject costs ~3 µs, by a Buffer ~23 µs. */
export function hmacKey(secret: Buffer): KeyObject {
  return createSecretKey(secret)
}

export function hashKey(secret: KeyObject, key: string): string {
  return createHmac('sha256', secret).update(key).digest('hex')
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * HMACs of keys that already matched a record, found by a plain SHA-256 of the key: the keyed
 * hash costs about five times as much on every request. Raw keys are never kept, and a digest
 * held here cannot be presented as a key. Only matched keys are remembered, so requests with
 * made-up keys cannot fill it; the oldest entry goes first once it is full.
 */
export class KnownKeyHashes {
  readonly #hashes = new Map<string, string>()
  readonly #secret: KeyObject
  readonly #maxEntries: number

  constructor(secret: KeyObject, maxEntries: number) {
    this.#secret = secret
    this.#maxEntries = maxEntries
  }

  get size(): number {
    return this.#hashes.size
  }

  /** The key's stored-form hash, and `confirm` to call once that hash has matched a record. */
  lookup(key: string): { readonly hash: string; readonly confirm: () => void } {
    const fingerprint = hash('sha256', key, 'base64')
    const known = this.#hashes.get(fingerprint)
    if (known !== undefined) return { hash: known, confirm: noop }
    const computed = hashKey(this.#secret, key)
    return {
      hash: computed,
      confirm: () => {
        if (this.#hashes.size >= this.#maxEntries) this.#hashes.delete(this.#hashes.keys().next().value!)
        this.#hashes.set(fingerprint, computed)
      },
    }
  }
}

const noop = () => undefined
