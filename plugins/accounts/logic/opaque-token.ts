// Opaque tokens (refresh, magic-link, verification, invitation): 32 random bytes, base64url.
// Only their SHA-256 is stored, so a copy of the store holds nothing that can be presented.
import { hash, randomBytes } from 'node:crypto'

export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url')
}

export function tokenDigest(token: string): string {
  return hash('sha256', token, 'base64url')
}
