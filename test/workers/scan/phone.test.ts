import t from 'tap'
import { scanContent, type EntityType } from '../../../workers/scan-content.ts'

function found(text: string, type: EntityType): string[] {
  return scanContent({ text, types: [type] }).map((f) => text.slice(f.start, f.end))
}

t.test('finds international numbers written with a country code', async (t) => {
  t.same(found('Paris office: +33 1 42 68 53 00', 'PHONE_NUMBER'), ['+33 1 42 68 53 00'])
  t.same(found('UK desk +44 (20) 7946 0958.', 'PHONE_NUMBER'), ['+44 (20) 7946 0958'])
})

t.test('finds national numbers that are valid in a supported region', async (t) => {
  t.same(found('call (212) 555-0187 after 5', 'PHONE_NUMBER'), ['(212) 555-0187'])
  t.same(found('Berlin: 030 901820', 'PHONE_NUMBER'), ['030 901820'])
})

t.test('keeps the extension with the number', async (t) => {
  t.same(found('desk (646) 555-0142 ext. 27', 'PHONE_NUMBER'), ['(646) 555-0142 ext. 27'])
})

t.test('raises the score when a phone context word is near', async (t) => {
  const [bare] = scanContent({ text: 'ref (212) 555-0187', types: ['PHONE_NUMBER'] })
  const [withContext] = scanContent({ text: 'phone (212) 555-0187', types: ['PHONE_NUMBER'] })
  t.ok((withContext?.score ?? 0) > (bare?.score ?? 1))
})

t.test('takes a bare digit run for a phone number only next to a phone context word', async (t) => {
  t.same(found('order 2125550187 shipped', 'PHONE_NUMBER'), [])
  t.same(found('mobile: 2125550187', 'PHONE_NUMBER'), ['2125550187'])
})

t.test('finds a number hidden with zero-width characters', async (t) => {
  const text = 'Call 646\u200b-555\u200b-0142'
  t.same(found(text, 'PHONE_NUMBER'), ['646\u200b-555\u200b-0142'])
})

t.test('ignores dates, year ranges, IP addresses, SSN layouts and short numbers', async (t) => {
  t.same(found('on 2021-05-20, during 2012-2015, host 10.20.30.40', 'PHONE_NUMBER'), [])
  t.same(found('SSN 536-22-1234', 'PHONE_NUMBER'), [])
  t.same(found('room 4521, code 12-34', 'PHONE_NUMBER'), [])
})

t.test('ignores lists of single digits', async (t) => {
  t.same(found('1 2 3 4 5 6 7 8 9', 'PHONE_NUMBER'), [])
})

t.test('finds Turkish landline and mobile numbers and rejects impossible ones', async (t) => {
  t.same(found('Ofis: 0312 444 12 34', 'TR_PHONE_NUMBER'), ['0312 444 12 34'])
  t.same(found('Cep: +90 505 123 45 67', 'TR_PHONE_NUMBER'), ['+90 505 123 45 67'])
  t.same(found('numara 7123456789', 'TR_PHONE_NUMBER'), [])
})

t.test('finds Philippine mobile numbers only with the trunk prefix or country code', async (t) => {
  t.same(found('Globe 0917 555 1234 or +63 918 555 1234', 'PH_MOBILE_NUMBER'), ['0917 555 1234', '+63 918 555 1234'])
  t.same(found('Numero: 9175551234', 'PH_MOBILE_NUMBER'), [])
})

t.test('a phone number followed by another short digit group is found without it', async (t) => {
  t.same(found('call +44 20 7946 0958 2024 please', 'PHONE_NUMBER'), ['+44 20 7946 0958'])
  t.same(found('tel 020 7946 0958 3', 'PHONE_NUMBER'), ['020 7946 0958'])
  t.same(found('ref 4567-8901-2345-6789', 'PHONE_NUMBER'), [], 'hyphenated groups are one number and are not split')
})
