import t from 'tap'
import { scanContent, type EntityType } from '../../../workers/scan-content.ts'

function found(text: string, type: EntityType): string[] {
  return scanContent({ text, types: [type] }).map((f) => text.slice(f.start, f.end))
}

t.test('finds Luhn-valid card numbers of the major networks, plain or grouped', async (t) => {
  t.same(found('visa 4242424242424242', 'CREDIT_CARD'), ['4242424242424242'])
  t.same(found('amex 3782 822463 10005 and discover 6011-1111-1111-1117', 'CREDIT_CARD'), ['3782 822463 10005', '6011-1111-1111-1117'])
})

t.test('rejects card numbers with a wrong check digit', async (t) => {
  t.same(found('visa 4242424242424241', 'CREDIT_CARD'), [])
})

t.test('rejects numbers with mixed separators, unknown issuers or impossible lengths', async (t) => {
  t.same(found('4242 4242-4242 4242', 'CREDIT_CARD'), [])
  t.same(found('ref 9999999999999995', 'CREDIT_CARD'), [])
  t.same(found('uatp 1748503543012', 'CREDIT_CARD'), [])
})

t.test('does not take a card out of a longer digit run', async (t) => {
  t.same(found('order 424242424242424242424242', 'CREDIT_CARD'), [])
})

t.test('finds IBANs plain and printed in groups of four', async (t) => {
  t.same(found('pay to GB82WEST12345698765432 today', 'IBAN_CODE'), ['GB82WEST12345698765432'])
  t.same(found('FR76 3000 6000 0112 3456 7890 189', 'IBAN_CODE'), ['FR76 3000 6000 0112 3456 7890 189'])
  t.same(found('dash: GB82-WEST-1234-5698-7654-32.', 'IBAN_CODE'), ['GB82-WEST-1234-5698-7654-32'])
})

t.test('rejects IBANs with a failed mod-97 check, the wrong length or an unknown country', async (t) => {
  t.same(found('GB82 WEST 1234 5698 7654 33', 'IBAN_CODE'), [])
  t.same(found('GB82 WEST 1234 5698 7654 3', 'IBAN_CODE'), [])
  t.same(found('QQ82WEST12345698765432', 'IBAN_CODE'), [])
})

t.test('rejects IBANs with doubled or mixed separators or lower-case letters', async (t) => {
  t.same(found('GB82 WEST  1234 5698 7654 32', 'IBAN_CODE'), [])
  t.same(found('GB82 WEST-1234 5698 7654 32', 'IBAN_CODE'), [])
  t.same(found('GB82 west 1234 5698 7654 32', 'IBAN_CODE'), [])
})

t.test('finds Bitcoin addresses whose checksum holds', async (t) => {
  t.same(found('send to 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 please', 'CRYPTO'), ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'])
  t.same(found('segwit bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'CRYPTO'), ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'])
})

t.test('rejects Bitcoin look-alikes with a broken checksum or extra characters', async (t) => {
  t.same(found('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'CRYPTO'), [])
  t.same(found('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp', 'CRYPTO'), [])
  t.same(found('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2x', 'CRYPTO'), [])
  t.same(found('sha 8f953371d3e85eddb89b05ed6b9e680791055315c73e1025ab5dba7bb2aee189', 'CRYPTO'), [])
})

t.test('a card followed by a CVV, an expiry year or another card is still found, each card on its own', async (t) => {
  t.same(found('card 4539 1488 0343 6467 123 exp 2027', 'CREDIT_CARD'), ['4539 1488 0343 6467'])
  t.same(found('4539148803436467 2027', 'CREDIT_CARD'), ['4539148803436467'])
  t.same(found('cards 4539 1488 0343 6467 5555 5555 5555 4444 on file', 'CREDIT_CARD'), ['4539 1488 0343 6467', '5555 5555 5555 4444'])
  t.same(found('amex 3782 822463 10005 1234', 'CREDIT_CARD'), ['3782 822463 10005'])
  t.same(found('pay 4539-1488-0343-6467-99', 'CREDIT_CARD'), ['4539-1488-0343-6467'])
  t.same(found('order 1234 5678 9012 3456 7890', 'CREDIT_CARD'), [], 'no stretch of the run is a card')
  t.same(found('4539 1488-0343 6467 123', 'CREDIT_CARD'), [], 'mixed separators inside a card still do not count')
})
