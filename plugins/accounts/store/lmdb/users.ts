// User records and the e-mail index in LMDB: the synchronous pieces the multi-record changes
// compose inside one transaction (PluginStore.transaction), so such a change commits whole or not
// at all.
import { randomUUID } from 'node:crypto'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { normalizeEmail, type User } from '../users.ts'

export interface UserRecords {
  byId(id: string): User | undefined
  byEmail(email: string): User | undefined
  /** In a transaction. Undefined when the e-mail already has an account. */
  create(input: Omit<User, 'id'>): User | undefined
  /** In a transaction. */
  update(id: string, changes: Partial<Omit<User, 'id' | 'email' | 'createdAt'>>): User
}

export function openUserRecords(store: PluginStore): UserRecords {
  const users = store.open<User>('users')
  const emails = store.open<string>('user-emails')
  const byId = (id: string) => users.get(id)
  return {
    byId,
    byEmail(email) {
      const id = emails.get(normalizeEmail(email))
      return id === undefined ? undefined : byId(id)
    },
    create(input) {
      const email = normalizeEmail(input.email)
      if (emails.get(email) !== undefined) return undefined
      const user: User = { ...input, id: randomUUID(), email }
      users.put(user.id, user)
      emails.put(email, user.id)
      return user
    },
    update(id, changes) {
      const current = byId(id)
      if (current === undefined) throw new Error(`no user ${id}`)
      const next: User = { ...current, ...changes }
      users.put(id, next)
      return next
    },
  }
}
