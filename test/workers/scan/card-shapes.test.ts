// Card numbers in the shapes a model writes them: groups a line, a tab or several blanks apart,
// one digit per space, dots, slashes or underscores between groups. Luhn still decides.
import t from 'tap'
import { scanContent } from '../../../workers/scan-content.ts'

function cards(text: string): string[] {
  return scanContent({ text, types: ['CREDIT_CARD'] }).map((f) => text.slice(f.start, f.end))
}

const VISA = ['4539', '1488', '0343', '6467']

t.test('a card is found whatever separator the model put between its groups', async (t) => {
  for (const separator of ['\n', '\r\n', '\t', '  ', '   ', '.', '/', '_', ' - ', ' / ']) {
    const card = VISA.join(separator)
    t.same(cards(`Here is the card:\n${card}\nkeep it safe.`), [card], JSON.stringify(separator))
  }
  t.same(cards('amex\n3782\n822463\n10005\nthanks'), ['3782\n822463\n10005'])
})

t.test('one digit per space, per tab or per dot', async (t) => {
  for (const separator of [' ', '\t', '.', '-']) {
    const card = [...'4539148803436467'].join(separator)
    t.same(cards(`card: ${card} (exp 12/27)`), [card], JSON.stringify(separator))
  }
  t.same(cards('digits 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 then 123'), ['4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'])
})

t.test('Luhn still decides: the same shapes with a wrong check digit are no card', async (t) => {
  for (const separator of ['\n', '\t', '  ', '.', '/', '_']) t.same(cards(['4539', '1488', '0343', '6468'].join(separator)), [], JSON.stringify(separator))
  t.same(cards([...'4539148803436468'].join(' ')), [])
})

t.test('dates, phone numbers, order ids, versions and addresses are no card', async (t) => {
  t.same(cards('between 2024.01.15 and 2025/02/16, 15.01.2024 or 2024_01_15'), [])
  t.same(cards('call +44 7911 123456 or (415) 555-0132 or 0049 30 1234 5678'), [])
  t.same(cards('order 4000/1234/5678/9011 and 4000_1234_5678_9011 and\n4000\n1234\n5678\n9011\nand 4000.1234.5678.9011'), [], 'order ids that fail Luhn')
  t.same(cards('version 4.19.1111.2222 of 10.0.19041.1234, at 192.168.100.200'), [])
  t.same(cards('scores 1 2 3 4 5 6 7 8 9 1 2 3 4 5 6 7 8 9 1 2 3 4'), [], 'a longer list of single digits is read whole')
  t.same(cards('4 5 3 9 1 4 8 8 0 3 4 3 6 4 6 7 8 9'), [], 'no card is cut out of a longer list of single digits')
  t.same(cards('4539 1488\n0343-6467'), [], 'separators still do not mix inside a card')
})

t.test('the scan stays linear on a megabyte of digits and separators', async (t) => {
  const shapes = ['1 ', '12.', '4539\n', '9_', '1234 ', '7  ', '1/', '-', '\t']
  let hostile = ''
  for (let i = 0; hostile.length < 1_000_000; i++) hostile += shapes[i % shapes.length]
  const digitsOnly = '4'.repeat(1_000_000)
  const dotted = '1.'.repeat(500_000)
  for (const [name, text] of [
    ['mixed', hostile],
    ['digits', digitsOnly],
    ['dotted', dotted],
  ] as const) {
    const started = performance.now()
    cards(text)
    const ms = performance.now() - started
    // Linear work is some tens of milliseconds here; a quadratic pass would take minutes.
    t.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`)
  }
  const started = performance.now()
  scanContent({ text: hostile })
  t.ok(performance.now() - started < 20_000, 'and so does the whole scan, every detector')
})
