// Where a stream's held-back text begins: values in progress wait, prose goes out.
import t from 'tap'
import { holdStart, isPlainProse, MAX_BLOCK_CHARS, MAX_HELD_CHARS } from '../../../../../plugins/governor/logic/stream/hold.ts'

const STRICT = { releasePlainWords: true }
const REDACTING = { releasePlainWords: false }

/** The held part of `text`, everything before `released` counting as sent. */
const held = (text: string, rules = STRICT, released = 0) => text.slice(holdStart(text, released, rules))

t.test('prose goes out whole in strict mode; with redaction the last word waits for the next', async (t) => {
  t.equal(held('Sure, here is the summary'), '')
  t.equal(held('Sure, here is the summary', REDACTING), 'summary')
  t.equal(held("It's done.", STRICT), '')
  t.equal(held('Ends with a space ', REDACTING), '')
  t.equal(held('Line\n'), '')
})

t.test('a token that may be a value waits: digits, capitals, symbols, a single letter', async (t) => {
  t.equal(held('Your key is AKIA'), 'AKIA')
  t.equal(held('card 4111'), '4111')
  t.equal(held('write to ana.lopez@ex'), 'ana.lopez@ex')
  t.equal(held('token eyJhbGci'), 'eyJhbGci')
  t.equal(held('the NRIC S'), 'NRIC S', 'a capitalised word before a value is held with it')
  t.equal(held('see `sk-pro'), '`sk-pro')
})

t.test('value-like tokens joined by single blanks are held as one group; a plain word or a double blank ends it', async (t) => {
  t.equal(held('card 4111 1111'), '4111 1111')
  t.equal(held('card 4111 1111 '), '4111 1111 ')
  t.equal(held('the IBAN DE89 3704 0044'), 'IBAN DE89 3704 0044')
  t.equal(held('call +1 (555) 123-45'), '+1 (555) 123-45')
  t.equal(held('my NINO AB 12 34'), 'NINO AB 12 34')
  t.equal(held('AB12 CD34  EF56'), 'EF56')
  t.equal(held('card 4111 1111 1111 1111 is'), '', 'strict mode: a finished group followed by a word goes out (and is scanned)')
  t.equal(held('card 4111 1111 1111 1111 is', REDACTING), '4111 1111 1111 1111 is')
})

t.test('digit groups stay joined across the gaps a card is written with: a line break, a tab, several blanks', async (t) => {
  t.equal(held('card:\n4111\n1111\n'), '4111\n1111\n')
  t.equal(held('card:\r\n4111\r\n1111'), '4111\r\n1111')
  t.equal(held('card 4111\t1111\t11'), '4111\t1111\t11')
  t.equal(held('card 4111   1111    '), '4111   1111    ')
  t.equal(held('card 4 1 1 1 1 1'), '4 1 1 1 1 1')
  t.equal(held('card 4111\n1111\n', REDACTING, 10), '1111\n', 'never what was released')
  t.equal(held('year 2024\n\n'), '', 'a blank line ends the number')
  t.equal(held('4111\nThe end'), '', 'a word on the next line ends it')
  t.equal(held('AB\nCD'), 'CD', 'only digits are joined across a line')
  t.equal(held('Line\n'), '')
})

t.test("a plain word right after an assignment operator waits: it may be a secret's start", async (t) => {
  t.equal(held('password: hunter'), 'hunter')
  t.equal(held('set api_key = secret'), 'api_key = secret')
  t.equal(held('"token": "abc'), '"abc')
  t.equal(held('The password is hunter'), '')
})

t.test('an armoured block is held from its header to its footer, up to its bound', async (t) => {
  const header = '-----BEGIN RSA PRIVATE KEY-----\n'
  const body = 'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n'
  t.equal(held(`Here it is:\n${header}${body}`), `${header}${body}`)
  t.equal(held(`Here it is:\n${header}${body}-----END RSA PRIV`), `${header}${body}-----END RSA PRIV`)
  t.equal(held(`${header}${body}-----END RSA PRIVATE KEY-----\nDone`), '', 'a closed block is released like any text')
  const long = `${header}${body.repeat(Math.ceil(MAX_BLOCK_CHARS / body.length))}`
  t.ok(held(long).length <= MAX_HELD_CHARS, 'beyond its bound a block is released from the front')
})

t.test('nothing is held beyond the bound, nor anything already released', async (t) => {
  const token = 'x1'.repeat(MAX_HELD_CHARS)
  t.equal(held(`start ${token}`).length, MAX_HELD_CHARS)
  t.equal(held('card 4111 1111', STRICT, 10), '1111')
  const emoji = `a${'😀'.repeat(MAX_HELD_CHARS)}`
  const start = holdStart(emoji, 0, STRICT)
  t.notOk(emoji.charCodeAt(start) >= 0xdc00 && emoji.charCodeAt(start) <= 0xdfff, 'never between the halves of a surrogate pair')
})

t.test('plain prose can hold no value: any digit, symbol or inner capital makes text more than prose', async (t) => {
  t.ok(isPlainProse('Thank you for your message. It usually arrives within three days; “keep it”, (please)!'))
  t.ok(isPlainProse('Größe, naïve café. 信用卡 in Chinese.'))
  for (const value of [
    '4111',
    'AKIAIOSFODNN7EXAMPLF',
    'ana@example.org',
    'eyJhbGci',
    'DE89 3704',
    'hf_abcdefghij',
    'password: x',
    'key=x',
    'sk-proj',
    'www.example.org',
    'de:ad:be:ef:ca:fe',
    '-----BEGIN',
    'IBAN',
  ]) {
    t.notOk(isPlainProse(`Here is ${value} now`), value)
  }
})
