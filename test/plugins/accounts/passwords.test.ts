// The scrypt tasks of the worker pool (workers/password.ts), called directly.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { hashPassword, verifyPassword } from '../../../workers/password.ts'

const salt = () => randomBytes(16).toString('base64url')

t.test('a hash carries its parameters and salt, and verifies only its own password', async (t) => {
  const encoded = hashPassword({ password: 'correct horse', salt: salt() })
  t.match(encoded, /^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/)
  t.equal(verifyPassword({ password: 'correct horse', encoded }), true)
  t.equal(verifyPassword({ password: 'correct horsf', encoded }), false)
  t.equal(verifyPassword({ password: '', encoded }), false)
})

t.test('the same password gets a different hash under a different salt', async (t) => {
  t.not(hashPassword({ password: 'same', salt: salt() }), hashPassword({ password: 'same', salt: salt() }))
})

t.test('canonically equivalent Unicode spellings of a password verify alike', async (t) => {
  const encoded = hashPassword({ password: 'caf\u00e9', salt: salt() })
  t.equal(verifyPassword({ password: 'cafe\u0301', encoded }), true)
})

t.test('a value that is not a scrypt hash never verifies', async (t) => {
  t.equal(verifyPassword({ password: 'x', encoded: 'plain-text' }), false)
  t.equal(verifyPassword({ password: 'x', encoded: 'bcrypt$1$2$3$abc$def' }), false)
})
