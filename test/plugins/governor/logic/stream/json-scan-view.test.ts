// A tool call's arguments as the scanner reads them: strings' escape sequences resolved, so a value
// right after one is found, and every finding mapped back to the arguments as generated, whole
// escape sequences included, where redaction replaces it and the result still parses.
import fc from 'fast-check'
import t from 'tap'
import { findingsInRaw, scanViewOf } from '../../../../../plugins/governor/logic/stream/json-scan-view.ts'
import { redactJson } from '../../../../../plugins/governor/logic/stream/redact-json.ts'
import { scanContent } from '../../../../../workers/scan-content.ts'
import { SENSITIVE } from '../../fixtures.ts'

/** The arguments scanned by their view and redacted, as the Governor does with a tool call. */
function redacted(json: string): string {
  const view = scanViewOf(json)
  return redactJson(json, findingsInRaw(scanContent({ text: view.text }), view)).text
}

t.test('escape sequences are resolved in the view, everything else is kept', async (t) => {
  t.equal(scanViewOf('{"n":"x\\n4111 1111 1111 1111"}').text, '{"n":"x\n4111 1111 1111 1111"}')
  t.equal(scanViewOf('{"a\\"b":["\\\\n","\\/","\\t\\u0041\\u00e9"],"c":12}').text, '{"a"b":["\\n","/","\tAé"],"c":12}')
  t.equal(scanViewOf('["\\ud83d\\ude00"]').text, '["😀"]')
})

t.test('text without escape sequences, or that is no JSON, is its own view', async (t) => {
  for (const text of ['{"card":"4111 1111 1111 1111"}', '{"n":"x\\n4111', 'x\\n4111 1111 1111 1111', '']) {
    const view = scanViewOf(text)
    t.equal(view.text, text)
    t.same(view.toRaw(2, 5), { start: 2, end: 5 })
  }
})

t.test('a span of the view maps to the raw text of what it holds, escape sequences and surrogate pairs whole', async (t) => {
  const json = '{"n":"a\\u00204111\\n"}'
  const view = scanViewOf(json)
  const at = view.text.indexOf('4111')
  t.same(view.toRaw(at, at + 4), { start: json.indexOf('4111'), end: json.indexOf('4111') + 4 })
  t.same(view.toRaw(at - 1, at + 5), { start: json.indexOf('\\u0020'), end: json.indexOf('"}') }, 'the escapes at either end are taken whole')
  t.same(view.toRaw(at, at), { start: json.indexOf('4111'), end: json.indexOf('4111') })
  const emoji = '["\\ud83d\\ude00"]'
  const pair = scanViewOf(emoji)
  t.same(pair.toRaw(2, 3), { start: 2, end: 14 }, 'half a pair is widened to the pair')
  t.same(pair.toRaw(3, 4), { start: 2, end: 14 })
  t.same(pair.toRaw(2, 4), { start: 2, end: 14 })
})

t.test('a card number after an escape sequence is found and redacted in place, and the arguments still parse', async (t) => {
  const card = SENSITIVE.card
  for (const [json, expected] of [
    [`{"note":"call me\\n${card}"}`, { note: 'call me\n[REDACTED:CREDIT_CARD]' }],
    [`{"note":"call me\\t${card}\\r\\n"}`, { note: 'call me\t[REDACTED:CREDIT_CARD]\r\n' }],
    [`{"note":"card\\u0020${card.replaceAll(' ', '\\u0020')}"}`, { note: 'card [REDACTED:CREDIT_CARD]' }],
    [`{"note":"the card \\"${card}\\""}`, { note: 'the card "[REDACTED:CREDIT_CARD]"' }],
    [`{"n\\u006fte":"${[...card].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`, { note: '[REDACTED:CREDIT_CARD]' }],
  ] as const) {
    const out = redacted(json)
    t.same(JSON.parse(out), expected, json)
    t.notMatch(out, /4111|1111/)
  }
})

// Characters to write plainly, with a short escape or as \u escapes: what JSON must escape
// (quotes, backslashes, control characters), what it may (/), and characters beyond ASCII.
const CHARS = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\u0001', '\b', 'é', '😀', '1', '{', ':', ',']
const SHORT: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** A character as a JSON string writes it: 0 plainly where JSON allows, 1 with its short escape where it has one, 2 as \u escapes (upper case on 3). */
function encode(char: string, how: number): string {
  const plain = char !== '"' && char !== '\\' && char >= ' '
  if (how === 0 && plain) return char
  if (how <= 1 && SHORT[char] !== undefined) return SHORT[char]
  const hex = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`
  const units = [...Array(char.length).keys()].map((i) => hex(char.charCodeAt(i)))
  return (how === 3 ? units.map((unit) => `\\u${unit.slice(2).toUpperCase()}`) : units).join('')
}

/** A string as pairs of a character and how it is written. */
const stringArb = fc.array(fc.tuple(fc.constantFrom(...CHARS), fc.nat(3)), { maxLength: 10 })
type Written = readonly (readonly [string, number])[]
const decoded = (s: Written) => s.map(([char]) => char).join('')
const encoded = (s: Written) => s.map(([char, how]) => encode(char, how)).join('')

t.test('for any object of strings, a value planted in one is found in the view and maps back to exactly its raw encoding', async (t) => {
  const caseArb = fc.record({
    entries: fc.array(fc.tuple(stringArb, stringArb), { maxLength: 4 }),
    key: stringArb,
    before: stringArb,
    value: stringArb.filter((s) => s.length > 0),
    after: stringArb,
    at: fc.nat(4),
  })
  fc.assert(
    fc.property(caseArb, ({ entries, key, before, value, after, at }) => {
      // The object is written twice, as the model would (raw) and with its strings decoded (the view
      // it should give), noting where the planted value lies in each.
      const members = entries.map(([k, v]): [Written, Written[]] => [k, [v]])
      members.splice(Math.min(at, members.length), 0, [key, [before, value, after]])
      let raw = '{'
      let view = '{'
      let planted = { raw: { start: 0, end: 0 }, view: { start: 0, end: 0 } }
      members.forEach(([k, parts], i) => {
        raw += `${i > 0 ? ',' : ''}"${encoded(k)}":"`
        view += `${i > 0 ? ',' : ''}"${decoded(k)}":"`
        parts.forEach((part, j) => {
          if (parts.length > 1 && j === 1)
            planted = {
              raw: { start: raw.length, end: raw.length + encoded(part).length },
              view: { start: view.length, end: view.length + decoded(part).length },
            }
          raw += encoded(part)
          view += decoded(part)
        })
        raw += '"'
        view += '"'
      })
      raw += '}'
      view += '}'
      JSON.parse(raw)
      const scanView = scanViewOf(raw)
      return (
        scanView.text === view &&
        scanView.text.slice(planted.view.start, planted.view.end) === decoded(value) &&
        JSON.stringify(scanView.toRaw(planted.view.start, planted.view.end)) === JSON.stringify(planted.raw) &&
        raw.slice(planted.raw.start, planted.raw.end) === encoded(value)
      )
    }),
    { numRuns: 3000 },
  )
})
