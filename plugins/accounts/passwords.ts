// Password hashing on the worker pool (workers/password.ts). An unknown e-mail is checked against
// a dummy hash, so a login costs the same work whether or not the account exists.
import { randomBytes } from 'node:crypto'
import type { WorkerPool } from '../../proxy/kit/pool.ts'

export interface Passwords {
  hash(password: string): Promise<string>
  /** `encoded` undefined or null: no such account (or no password); the work is done anyway and the answer is false. */
  verify(password: string, encoded: string | null | undefined): Promise<boolean>
}

const newSalt = () => randomBytes(16).toString('base64url')

export async function createPasswords(pool: WorkerPool): Promise<Passwords> {
  const hash = (password: string) => pool.run('hashPassword', { password, salt: newSalt() })
  const dummy = await hash(randomBytes(16).toString('base64url'))
  return {
    hash,
    async verify(password, encoded) {
      const matches = await pool.run('verifyPassword', { password, encoded: encoded ?? dummy })
      return matches && typeof encoded === 'string'
    },
  }
}
