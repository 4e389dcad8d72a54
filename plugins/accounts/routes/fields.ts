// Body and query fields shared by several account routes.
import { z } from 'zod'

export const emailField = z.email({ error: 'email must be an e-mail address' }).max(254, 'email must hold at most 254 characters')
export const passwordField = z
  .string({ error: 'password must be a string' })
  .min(6, 'password must hold at least 6 characters')
  .max(1024, 'password must hold at most 1024 characters')
/** Opaque tokens are 43 characters; a wrong one is answered 401 like an unknown one. */
export const tokenField = z.string({ error: 'token must be a string' }).min(1, 'token must not be empty').max(512, 'token is too long')
export const tokenQuery = z.object({ token: tokenField })

/**
 * A name people give (an organization, a project, a key): shown in lists and pages, so one line of
 * printable text. Control characters are refused; PostgreSQL could not store a NUL either.
 */
export function nameField(field: string) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(200, `${field} must hold at most 200 characters`)
    .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), `${field} must not hold control characters`)
}
