import t from 'tap'
import fc from 'fast-check'
import { MAX_KEY_LENGTH, parseIdempotencyKey } from '../../../../plugins/idempotency/logic/idempotency-key.ts'

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code))
const validKey = fc.array(printable, { minLength: 1, maxLength: MAX_KEY_LENGTH }).map((chars) => chars.join(''))

t.test('an absent header means no idempotency, and valid keys come back unchanged', async (t) => {
  t.equal(parseIdempotencyKey(undefined), undefined)
  t.same(parseIdempotencyKey('order-7f3a'), { ok: true, key: 'order-7f3a' })
  t.same(parseIdempotencyKey('x'.repeat(MAX_KEY_LENGTH)), { ok: true, key: 'x'.repeat(MAX_KEY_LENGTH) })
})

t.test('empty, too long, non-ASCII, control characters and repeated headers are refused', async (t) => {
  for (const bad of ['', 'x'.repeat(MAX_KEY_LENGTH + 1), 'clé', 'tab\there', 'new\nline', 'del\x7f']) {
    t.match(parseIdempotencyKey(bad), { ok: false, message: /1 to 255 printable ASCII/ }, JSON.stringify(bad))
  }
  t.match(parseIdempotencyKey(['a', 'b']), { ok: false, message: /single Idempotency-Key/ })
})

t.test('every string of 1 to 255 printable ASCII characters is accepted as itself', async () => {
  fc.assert(
    fc.property(validKey, (key) => {
      const parsed = parseIdempotencyKey(key)
      return parsed?.ok === true && parsed.key === key
    }),
  )
})

t.test('any other string is refused with a message, never thrown on', async () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
      const parsed = parseIdempotencyKey(value)!
      const valid = value.length >= 1 && value.length <= MAX_KEY_LENGTH && [...value].every((c) => c >= ' ' && c <= '~')
      return valid ? parsed.ok && parsed.key === value : !parsed.ok && parsed.message.length > 0
    }),
  )
})
