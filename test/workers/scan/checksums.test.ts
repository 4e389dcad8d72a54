import t from 'tap'
import {
  icaoCheckDigit,
  isBase58CheckValid,
  isBech32Valid,
  isIbanChecksumValid,
  isLuhnValid,
  isVerhoeffValid,
  iso7064Mod11Check,
} from '../../../workers/scan/checksums.ts'

t.test('Luhn accepts the textbook example and rejects every other last digit', async (t) => {
  t.ok(isLuhnValid('79927398713'))
  for (const last of '012456789') t.notOk(isLuhnValid(`7992739871${last}`), last)
})

t.test('IBAN mod 97 accepts registry examples and rejects a changed digit', async (t) => {
  t.ok(isIbanChecksumValid('GB82WEST12345698765432'))
  t.ok(isIbanChecksumValid('DE89370400440532013000'))
  t.notOk(isIbanChecksumValid('DE89370400440532013001'))
  t.notOk(isIbanChecksumValid('de89370400440532013000'))
})

t.test('Verhoeff accepts 2363 and catches single-digit errors and transpositions', async (t) => {
  t.ok(isVerhoeffValid('2363'))
  t.notOk(isVerhoeffValid('2364'))
  t.notOk(isVerhoeffValid('3263'))
})

t.test('ISO 7064 MOD 11,10 yields the check digit of a German tax id', async (t) => {
  t.equal(iso7064Mod11Check('8609574271'), 9)
})

t.test('ICAO 9303 check digit matches the specimen passport L898902C3', async (t) => {
  t.equal(icaoCheckDigit('L898902C3'), 6)
})

t.test('Base58Check accepts P2PKH and P2SH examples and rejects a changed character', async (t) => {
  t.ok(isBase58CheckValid('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'))
  t.ok(isBase58CheckValid('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'))
  t.notOk(isBase58CheckValid('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3'))
  t.notOk(isBase58CheckValid('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNV0'))
})

t.test('bech32 and bech32m accept SegWit and Taproot addresses and reject a changed character', async (t) => {
  t.ok(isBech32Valid('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'))
  t.ok(isBech32Valid('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'))
  t.notOk(isBech32Valid('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp'))
  t.notOk(isBech32Valid('bc1qar0'))
})
