// Single-use tokens mailed to a user: e-mail verification, magic-link sign-in, invitations.
// Taking one removes it in the same transaction (LMDB) or statement (PostgreSQL) that reads it, so
// two concurrent uses cannot both succeed, and a token of one kind is never accepted as another.
import type { Role } from '../logic/roles.ts'

export type OneTimePayload =
  /** The password of the sign-up that mailed it, so verifying sets the password its owner chose. */
  | { readonly kind: 'verify'; readonly userId: string; readonly passwordHash: string }
  | { readonly kind: 'magic'; readonly userId: string }
  | { readonly kind: 'invite'; readonly organizationId: string; readonly email: string; readonly role: Role; readonly invitedBy: string }

type Kind = OneTimePayload['kind']

export type PayloadOf<K extends Kind> = Extract<OneTimePayload, { kind: K }>

export interface OneTimeTokens {
  issue(payload: OneTimePayload, expiresAt: number): Promise<string>
  /** The payload, if the token exists, is of this kind and has not expired; never modifies. */
  peek<K extends Kind>(kind: K, token: string, now: number): Promise<PayloadOf<K> | undefined>
  /** Like peek, and removes the token when it is of this kind. */
  take<K extends Kind>(kind: K, token: string, now: number): Promise<PayloadOf<K> | undefined>
  /** Drops expired tokens; run at start. */
  removeExpired(now: number): Promise<void>
}
