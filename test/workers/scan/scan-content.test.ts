import t from 'tap'
import fc from 'fast-check'
import { scanContent, scanContentBatch } from '../../../workers/scan-content.ts'
import * as tasks from '../../../workers/tasks.ts'
import { ENTITY_TYPES } from '../../../workers/scan/types.ts'

const MIXED = 'Mail ana@example.org or call +44 20 7946 0958. Card 4242 4242 4242 4242, IBAN GB82WEST12345698765432, host 203.0.113.7.'

t.test('is exported as a worker task that scans a batch of texts, each on its own', async (t) => {
  t.equal(tasks.scanContentBatch, scanContentBatch)
  const texts = ['mail ana@example.org', 'nothing here', MIXED]
  t.same(
    scanContentBatch({ texts }),
    texts.map((text) => scanContent({ text })),
  )
})

t.test('returns findings sorted by start with offsets into the text', async (t) => {
  const findings = scanContent({ text: MIXED })
  const starts = findings.map((f) => f.start)
  t.same(
    starts,
    [...starts].sort((a, b) => a - b),
  )
  const byType = new Map(findings.map((f) => [f.type, MIXED.slice(f.start, f.end)]))
  t.equal(byType.get('EMAIL_ADDRESS'), 'ana@example.org')
  t.equal(byType.get('CREDIT_CARD'), '4242 4242 4242 4242')
  t.equal(byType.get('IBAN_CODE'), 'GB82WEST12345698765432')
  t.equal(byType.get('IP_ADDRESS'), '203.0.113.7')
})

t.test('reports only the types asked for', async (t) => {
  const findings = scanContent({ text: MIXED, types: ['IBAN_CODE'] })
  t.same(
    findings.map((f) => f.type),
    ['IBAN_CODE'],
  )
  t.same(scanContent({ text: MIXED, types: [] }), [])
})

t.test('merges overlapping findings of one type into one span with the higher score', async (t) => {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')
  const payload = Buffer.from('{"sub":"42"}').toString('base64url')
  const jwt = `${header}.${payload}.u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d`
  const text = `"access_token": "${jwt}"`
  const findings = scanContent({ text, types: ['SECRET'] })
  t.equal(findings.length, 1)
  t.equal(text.slice(findings[0]?.start, findings[0]?.end), jwt)
  t.equal(findings[0]?.score, 0.9)
})

t.test('keeps overlapping findings of different types apart', async (t) => {
  const findings = scanContent({ text: 'TFN 123 456 782' })
  t.ok(findings.some((f) => f.type === 'AU_TFN'))
  t.ok(findings.some((f) => f.type === 'CA_SIN'))
})

t.test('returns nothing for empty text and gives the same answer twice', async (t) => {
  t.same(scanContent({ text: '' }), [])
  t.same(scanContent({ text: MIXED }), scanContent({ text: MIXED }))
})

t.test('keeps every finding inside the text with a score between 0 and 1', async (t) => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme-composite', maxLength: 120 }),
      fc.constantFrom('', ' 4242424242424242', ' a@b.io', ' 10.0.0.1'),
      (noise, entity) => {
        const text = noise + entity
        return scanContent({ text }).every(
          (f) => f.start >= 0 && f.start < f.end && f.end <= text.length && f.score >= 0 && f.score <= 1 && ENTITY_TYPES.includes(f.type),
        )
      },
    ),
    { numRuns: 200 },
  )
})

// Inputs built to make backtracking regexes explode. The tap per-file timeout bounds the run;
// each scan finishes in milliseconds because every pattern is bounded or anchored.
const ADVERSARIAL_UNITS = [
  'a',
  '1',
  '1 ',
  '(1)',
  'a@',
  'a.',
  '1.',
  '1:',
  '::',
  '-',
  'x=',
  'key=',
  'key="',
  'password ',
  'eyJ',
  'eyJa.',
  '%41',
  'http://',
  '//a/',
  'AKIA',
  'xoxb-1',
  'sk-',
  'ignore ',
  'curl -u ',
  '-----BEGIN PRIVATE KEY-----',
  '\u200b',
  'ｘ',
  'a.b@',
  'Mz',
  '1/',
  '1-',
  'DE1',
  'AA1',
  'ZXlK',
]

t.test('scans 16 KB of adversarial repetition without catastrophic backtracking', async (t) => {
  for (const unit of ADVERSARIAL_UNITS) {
    const text = unit.repeat(Math.ceil(16384 / unit.length)).slice(0, 16384)
    const findings = scanContent({ text })
    t.ok(Array.isArray(findings), JSON.stringify(unit))
  }
})
