// Refresh tokens, rotated on every use. Each login starts a family; a refresh replaces the
// family's current token with a new one. Presenting a token that was already rotated means two
// parties hold it, so the whole family is revoked (RFC 6819 §5.2.2.3).

export type Rotation =
  | { readonly ok: true; readonly token: string; readonly familyId: string; readonly userId: string }
  | { readonly ok: false; readonly reason: 'unknown' | 'expired' | 'revoked' | 'reused' }

export interface RefreshTokens {
  /** A new family (one login) and its first token. */
  start(userId: string, now: number): Promise<{ token: string; familyId: string }>
  /** Refused as revoked, and the family with it, once the user is no longer a member of their organization. */
  rotate(token: string, now: number): Promise<Rotation>
  /** Revokes the family the token belongs to; false when the token is unknown. */
  revokeByToken(token: string): Promise<boolean>
  revokeFamily(familyId: string): Promise<void>
  isLive(familyId: string, now: number): Promise<boolean>
  removeExpired(now: number): Promise<void>
}
