import t from 'tap'
import fc from 'fast-check'
import { KnownKeyHashes, hashKey, hmacKey } from '../../../../plugins/auth/logic/key-hash.ts'

const secret = hmacKey(Buffer.alloc(32, 7))

t.test('a known key gets the same hash as the keyed hash gives, confirmed or not', async (t) => {
  const known = new KnownKeyHashes(secret, 10)
  const first = known.lookup('sk_prod_abc')
  t.equal(first.hash, hashKey(secret, 'sk_prod_abc'))
  t.equal(known.size, 0, 'nothing is remembered before a record matched')
  first.confirm()
  t.equal(known.size, 1)
  t.equal(known.lookup('sk_prod_abc').hash, hashKey(secret, 'sk_prod_abc'))
  t.equal(known.lookup('sk_prod_abd').hash, hashKey(secret, 'sk_prod_abd'), 'a near key is hashed on its own')
})

t.test('the oldest remembered key goes first once full', async (t) => {
  const known = new KnownKeyHashes(secret, 2)
  for (const key of ['a', 'b', 'c']) known.lookup(key).confirm()
  t.equal(known.size, 2)
})

t.test('whatever was looked up and confirmed before, every answer is the keyed hash', async (t) => {
  const step = fc.record({ key: fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5'), confirm: fc.boolean() })
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const known = new KnownKeyHashes(secret, 3)
      return steps.every(({ key, confirm }) => {
        const found = known.lookup(key)
        if (confirm) found.confirm()
        return found.hash === hashKey(secret, key) && known.size <= 3
      })
    }),
  )
  t.pass('every hash matched')
})
