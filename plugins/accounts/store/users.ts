// User records: `Users` is what the routes read, in either store (lmdb/users.ts, postgres/users.ts).

export interface User {
  readonly id: string
  readonly email: string
  /** Null for an account made by an invitation without a password (magic links only). */
  readonly passwordHash: string | null
  readonly verified: boolean
  /** Null once the user was removed from their organization. */
  readonly organizationId: string | null
  readonly createdAt: string
}

export interface Users {
  byId(id: string): Promise<User | undefined>
  byEmail(email: string): Promise<User | undefined>
}

/** E-mail addresses compare case-insensitively; the local part's case is kept nowhere. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}
