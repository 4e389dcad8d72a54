import t from 'tap'
import fc from 'fast-check'
import { displayPrefix, generateKey, parseKey } from '../../../../plugins/auth/logic/key-format.ts'

t.test('generated keys carry their type and environment and parse back', async (t) => {
  t.same(parseKey(generateKey('sk', 'dev')), { type: 'sk', env: 'dev' })
  t.same(parseKey(generateKey('pk', null)), { type: 'pk', env: null })
  t.match(generateKey('sk', 'prod'), /^sk_prod_[0-9A-Za-z]{38}$/)
})

t.test('a single changed character fails the checksum', async (t) => {
  const key = generateKey('sk', 'stg')
  const last = key.at(-10) === 'a' ? 'b' : 'a'
  t.equal(parseKey(key.slice(0, -10) + last + key.slice(-9)), undefined)
})

t.test('arbitrary strings never parse as keys and never throw', async (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => parseKey(text) === undefined))
})

t.test('the display prefix shows the marker, four characters and the last four', async (t) => {
  const key = generateKey('sk', 'dev')
  t.equal(displayPrefix(key), `${key.slice(0, 11)}…${key.slice(-4)}`)
  const plain = generateKey('pk', null)
  t.equal(displayPrefix(plain), `${plain.slice(0, 7)}…${plain.slice(-4)}`)
})
