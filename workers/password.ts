// Password hashing with scrypt (RFC 7914), run in the worker pool because one hash takes a
// couple of hundred milliseconds on purpose. The parameters travel inside the encoded hash, so
// stronger ones can be introduced later without breaking stored passwords.
import { scryptSync, timingSafeEqual } from 'node:crypto'

// OWASP's scrypt setting for 32 MiB of memory: N=2^15, r=8, p=3. Memory is 128·N·r bytes.
const COST = 2 ** 15
const BLOCK_SIZE = 8
const PARALLELISM = 3
const KEY_LENGTH = 32
const MAX_MEMORY = 64 * 1024 * 1024
const SCHEME = 'scrypt'

interface HashPasswordInput {
  readonly password: string
  /** Random bytes, base64url; a new salt for every hash. */
  readonly salt: string
}

interface VerifyPasswordInput {
  readonly password: string
  /** A value hashPassword returned. */
  readonly encoded: string
}

function derive(password: string, salt: Buffer, N: number, r: number, p: number, length: number): Buffer {
  return scryptSync(password.normalize('NFKC'), salt, length, { N, r, p, maxmem: MAX_MEMORY })
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export function hashPassword(input: HashPasswordInput): string {
  const salt = Buffer.from(input.salt, 'base64url')
  const hash = derive(input.password, salt, COST, BLOCK_SIZE, PARALLELISM, KEY_LENGTH)
  return [SCHEME, COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

export function verifyPassword(input: VerifyPasswordInput): boolean {
  const [scheme, n, r, p, salt, hash] = input.encoded.split('$')
  if (scheme !== SCHEME || salt === undefined || hash === undefined) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = derive(input.password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p), expected.length)
  return timingSafeEqual(actual, expected)
}
