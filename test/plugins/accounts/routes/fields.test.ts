import t from 'tap'
import fc from 'fast-check'
import { nameField } from '../../../../plugins/accounts/routes/fields.ts'

const name = nameField('name')

t.test('a name is one line of printable text, trimmed, 1 to 200 characters', async (t) => {
  t.equal(name.parse('  Acme Corp  '), 'Acme Corp')
  t.equal(name.parse('Équipe — 東京 😀'), 'Équipe — 東京 😀')
  for (const [bad, message] of [
    ['', 'name must not be empty'],
    ['   ', 'name must not be empty'],
    ['x'.repeat(201), 'name must hold at most 200 characters'],
    ['a\u0000b', 'name must not hold control characters'],
    ['two\nlines', 'name must not hold control characters'],
    ['bell\u0007', 'name must not hold control characters'],
    ['del\u007f', 'name must not hold control characters'],
  ]) {
    const parsed = name.safeParse(bad)
    t.notOk(parsed.success, JSON.stringify(bad))
    t.equal(parsed.error?.issues[0]?.message, message)
  }
})

t.test('any name holding a control character is refused, with the field named', async (t) => {
  fc.assert(
    fc.property(fc.string(), fc.integer({ min: 0, max: 0x1f }), fc.string(), (before, code, after) => {
      const parsed = nameField('organizationName').safeParse(`x${before}${String.fromCharCode(code)}${after}x`)
      return !parsed.success && parsed.error.issues.every((issue) => issue.message.startsWith('organizationName '))
    }),
  )
  t.pass()
})
