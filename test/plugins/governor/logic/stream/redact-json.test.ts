// A tool call's arguments redacted as JSON: values are replaced inside their strings, and whatever
// the findings' spans the result still parses and holds none of the values found.
import fc from 'fast-check'
import t from 'tap'
import { redactJson } from '../../../../../plugins/governor/logic/stream/redact-json.ts'
import { ENTITY_TYPES, type EntityType, type Finding } from '../../../../../workers/scan/types.ts'
import { scanContent } from '../../../../../workers/scan-content.ts'
import { SENSITIVE } from '../../fixtures.ts'

const scanned = (text: string) => redactJson(text, scanContent({ text })).text
const found = (start: number, end: number, type: EntityType = 'CREDIT_CARD'): Finding => ({ type, start, end, score: 0.95 })
const spanOf = (text: string, part: string): [number, number] => [text.indexOf(part), text.indexOf(part) + part.length]

t.test('a value inside a string is replaced there, the rest of the string kept', async (t) => {
  t.equal(scanned(JSON.stringify({ card: SENSITIVE.card, note: 'keep it safe' })), '{"card":"[REDACTED:CREDIT_CARD]","note":"keep it safe"}')
  t.equal(scanned(JSON.stringify({ note: `mail ${SENSITIVE.email} or call` })), '{"note":"mail [REDACTED:EMAIL_ADDRESS] or call"}')
  t.equal(
    scanned(JSON.stringify({ key: SENSITIVE.secret, nested: { cards: [SENSITIVE.card] } })),
    '{"key":"[REDACTED:SECRET]","nested":{"cards":["[REDACTED:CREDIT_CARD]"]}}',
  )
  const text = '{"a":"x 4111 1111 1111 1111"}'
  const [start, end] = spanOf(text, SENSITIVE.card)
  t.same(redactJson(text, [found(start, end)]), { text: '{"a":"x [REDACTED:CREDIT_CARD]"}', spans: [{ start, end }] })
})

t.test('a value written as a number becomes the string "[REDACTED:TYPE]"', async (t) => {
  const text = '{"card":4111111111111111,"amount":42}'
  t.equal(redactJson(text, [found(...spanOf(text, '4111111111111111'))]).text, '{"card":"[REDACTED:CREDIT_CARD]","amount":42}')
  t.equal(redactJson(text, [found(...spanOf(text, '1111111111'))]).text, '{"card":"[REDACTED:CREDIT_CARD]","amount":42}', 'part of a number')
})

t.test('a span that crosses a quote or cuts an escape sequence has each string it touches replaced whole', async (t) => {
  const text = '{"a":"4111 1111","b":"1111 1111","c":"free"}'
  const crossing = redactJson(text, [found(...spanOf(text, '1111","b":"1111'))])
  t.equal(crossing.text, '{"a":"[REDACTED:CREDIT_CARD]","[REDACTED:CREDIT_CARD]":"[REDACTED:CREDIT_CARD]","c":"free"}')
  t.same(crossing.spans, [
    { start: 6, end: 15 },
    { start: 18, end: 19 },
    { start: 22, end: 31 },
  ])
  const escaped = '{"a":"line\\n4111 1111 1111 1111"}'
  const start = escaped.indexOf('\\n') + 1
  t.equal(redactJson(escaped, [found(start, escaped.lastIndexOf('1') + 1)]).text, '{"a":"[REDACTED:CREDIT_CARD]"}', 'a span that starts inside \\n')
  const whole = '{"a":"\\u00e9 4111 1111 1111 1111"}'
  t.equal(redactJson(whole, [found(6, whole.lastIndexOf('1') + 1)]).text, '{"a":"[REDACTED:CREDIT_CARD]"}', 'a span that takes in \\u00e9 whole')
  t.equal(
    redactJson(text, [found(1, 3, 'EMAIL_ADDRESS'), found(5, 16, 'SECRET')]).text,
    '{"[REDACTED:EMAIL_ADDRESS]":"[REDACTED:SECRET]","b":"1111 1111","c":"free"}',
  )
})

t.test('several findings in one string; overlapping ones are one replacement named after the most sensitive', async (t) => {
  const text = '{"note":"ana@example.org and 4111 1111 1111 1111"}'
  const [cardStart, cardEnd] = spanOf(text, SENSITIVE.card)
  const out = redactJson(text, [found(...spanOf(text, 'ana@example.org'), 'EMAIL_ADDRESS'), found(cardStart, cardEnd), found(cardStart, cardEnd - 5, 'SECRET')])
  t.equal(out.text, '{"note":"[REDACTED:EMAIL_ADDRESS] and [REDACTED:SECRET]"}')
})

t.test('types that are not redacted are left alone; text that is no JSON is redacted as text', async (t) => {
  const text = '{"when":"2024-05-01"}'
  t.same(redactJson(text, [found(9, 19, 'DATE_TIME'), found(9, 19, 'PROMPT_INJECTION')]), { text, spans: [] })
  t.equal(scanned(`{"card":"${SENSITIVE.card}`), '{"card":"[REDACTED:CREDIT_CARD]')
  t.same(redactJson('', []), { text: '', spans: [] })
})

// Strings with what JSON escapes (quotes, backslashes, control characters) and characters beyond ASCII.
const stringArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', '\n', '\u0001', '/', 'é', '😀', '1', '{', ':', ','), maxLength: 12 })
const objectArb = fc.dictionary(stringArb, fc.oneof(stringArb, fc.array(stringArb, { maxLength: 3 })), { maxKeys: 5 })

t.test('whatever the findings, the redacted arguments parse as JSON', async (t) => {
  const caseArb = objectArb.chain((object) => {
    const text = JSON.stringify(object)
    const spanArb = fc.tuple(fc.nat(text.length), fc.nat(text.length)).filter(([a, b]) => a !== b)
    const findingArb = fc
      .record({ span: spanArb, type: fc.oneof(fc.constant<EntityType>('CREDIT_CARD'), fc.constantFrom(...ENTITY_TYPES)) })
      .map(({ span: [a, b], type }) => found(Math.min(a, b), Math.max(a, b), type))
    return fc.tuple(fc.constant(text), fc.array(findingArb, { maxLength: 6 }))
  })
  fc.assert(
    fc.property(caseArb, ([text, findings]) => {
      JSON.parse(redactJson(text, findings).text)
      return redactJson(text, []).text === text
    }),
    { numRuns: 2000 },
  )
})

t.test('for any JSON object of strings and any findings of values in it, the output parses and holds none of them', async (t) => {
  // Values are runs of Q, X and Z, which no other text here holds, so each is found by looking
  // for them; a finding may reach a little past its value, across quotes and escape sequences.
  const valueArb = fc.string({ unit: fc.constantFrom('Q', 'X', 'Z'), minLength: 6, maxLength: 10 })
  const partsArb = fc.array(fc.oneof(stringArb, valueArb), { maxLength: 4 }).map((parts) => parts.join(''))
  const caseArb = fc.dictionary(partsArb, fc.oneof(partsArb, fc.array(partsArb, { maxLength: 3 })), { maxKeys: 5 }).chain((object) => {
    const text = JSON.stringify(object)
    const values = [...text.matchAll(/[QXZ]+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length }))
    const reachArb = fc.tuple(fc.nat(4), fc.nat(4))
    return fc.tuple(fc.constant(text), fc.tuple(...values.map(() => reachArb))).map(([text, reaches]) => ({
      text,
      values,
      findings: values.map((value, i) => found(Math.max(0, value.start - reaches[i]![0]), Math.min(text.length, value.end + reaches[i]![1]))),
    }))
  })
  fc.assert(
    fc.property(caseArb, ({ text, values, findings }) => {
      const out = redactJson(text, findings).text
      JSON.parse(out)
      return !/[QXZ]/.test(out) && values.every((value) => !out.includes(text.slice(value.start, value.end)))
    }),
    { numRuns: 2000 },
  )
})
