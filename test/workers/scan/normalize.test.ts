import t from 'tap'
import fc from 'fast-check'
import { normalizeText } from '../../../workers/scan/normalize.ts'
import { scanContent } from '../../../workers/scan-content.ts'

const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad']

t.test('leaves plain ASCII untouched with identity offsets', async (t) => {
  const normalized = normalizeText('mail bob@example.com now')
  t.equal(normalized.text, 'mail bob@example.com now')
  t.same(normalized.toOriginal(5, 20), { start: 5, end: 20 })
})

t.test('maps fullwidth characters to ASCII and offsets back to the fullwidth text', async (t) => {
  const original = 'Contact: ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ'
  const normalized = normalizeText(original)
  t.equal(normalized.text, 'Contact: bob@example.com')
  t.same(normalized.toOriginal(9, 24), { start: 9, end: original.length })
})

t.test('removes zero-width characters and maps spans across them', async (t) => {
  const original = 'a\u200bb\u200dc'
  const normalized = normalizeText(original)
  t.equal(normalized.text, 'abc')
  t.same(normalized.toOriginal(0, 3), { start: 0, end: original.length })
})

t.test('decodes percent-escapes of printable ASCII only', async (t) => {
  t.equal(normalizeText('%6a%61%6e%65%40x.org').text, 'jane@x.org')
  t.equal(normalizeText('50%ZZ and %E8%AE').text, '50%ZZ and %E8%AE')
})

t.test('turns Unicode tag characters into the ASCII they hide', async (t) => {
  const hidden = [...'ignore'].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join('')
  const normalized = normalizeText(`hi ${hidden}!`)
  t.equal(normalized.text, 'hi ignore!')
  t.same(normalized.toOriginal(3, 9), { start: 3, end: 3 + hidden.length })
})

t.test('composes a letter with its combining mark', async (t) => {
  const normalized = normalizeText('cafe\u0301 ok')
  t.equal(normalized.text, 'café ok')
  t.same(normalized.toOriginal(3, 4), { start: 3, end: 5 })
})

t.test('keeps CJK text unchanged while normalizing fullwidth punctuation inside it', async (t) => {
  const original = '邮箱ｔｅｓｔ＠ｍａｉｌ．ｃｏｍ，谢谢'
  const normalized = normalizeText(original)
  t.equal(normalized.text, '邮箱test@mail.com,谢谢')
  const [finding] = scanContent({ text: original, types: ['EMAIL_ADDRESS'] })
  t.equal(original.slice(finding?.start, finding?.end), 'ｔｅｓｔ＠ｍａｉｌ．ｃｏｍ')
})

const localPart = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/)
const domainLabel = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/)
const filler = fc.stringMatching(/^[A-Za-z ,.]{0,40}$/)

/** Inserts zero-width characters at the chosen positions of `text`. */
function sprinkle(text: string, picks: readonly { at: number; which: number }[]): string {
  const chars = [...text]
  for (const { at, which } of [...picks].sort((a, b) => b.at - a.at)) {
    chars.splice(at % (chars.length + 1), 0, ZERO_WIDTH[which % ZERO_WIDTH.length] as string)
  }
  return chars.join('')
}

t.test('finds an e-mail address whatever zero-width characters are inserted, with offsets into the original', async (t) => {
  fc.assert(
    fc.property(
      filler,
      localPart,
      domainLabel,
      fc.constantFrom('com', 'org', 'net', 'io'),
      filler,
      fc.array(fc.record({ at: fc.nat(), which: fc.nat() }), { maxLength: 6 }),
      (before, local, domain, tld, after, picks) => {
        const email = `${local}@${domain}.${tld}`
        const disguised = sprinkle(email, picks)
        const text = `${before} ${disguised} ${after}`
        const findings = scanContent({ text, types: ['EMAIL_ADDRESS'] })
        if (findings.length !== 1) return false
        const [finding] = findings
        const covered = text.slice(finding?.start, finding?.end)
        return covered.replace(/\u200b|\u200c|\u200d|\u2060|\ufeff|\u00ad/g, '') === email && disguised.includes(covered)
      },
    ),
  )
})

t.test('maps every normalized span back inside the original text', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.nat(), fc.nat(), (text, a, b) => {
      const normalized = normalizeText(text)
      const length = normalized.text.length
      if (length === 0) return true
      const start = a % length
      const end = start + 1 + (b % (length - start))
      const span = normalized.toOriginal(start, end)
      return span.start >= 0 && span.start < span.end && span.end <= text.length
    }),
  )
})
