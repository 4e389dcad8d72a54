import t from 'tap'
import fc from 'fast-check'
import { countTokens, hasCutRun, partsOf, RUN_LIMIT } from '../../workers/count-tokens.ts'

const prose = 'The stream was cut after the model had written most of its answer, and the gateway still meters it. '
const cjk = '计量在流被截断时仍然按生成的内容收费，每个字都算。'

t.test('parts of a long text count, added up, exactly what the whole text counts', async (t) => {
  const texts = {
    prose: prose.repeat(700),
    cjk: cjk.repeat(2000),
    'a run without spaces': 'a1B2'.repeat(20_000),
    'mixed, with newlines and emoji': `${prose}\n\n${cjk}😀😀 ${'x'.repeat(3 * RUN_LIMIT + 1)}\t`.repeat(300),
    'short words on lines of their own, no space': "id,name\n41,ana\r\n42,bo.\n43,it's\n\n".repeat(3000),
  }
  for (const [name, text] of Object.entries(texts)) {
    const parts = partsOf(text, 4096)
    t.ok(parts.length > 1, `${name}: cut into ${parts.length} parts`)
    t.equal(parts.join(''), text, `${name}: the parts make up the text`)
    t.ok(
      parts.every((part) => part.length <= 4096),
      `${name}: no part is longer than asked`,
    )
    t.equal(
      parts.reduce((sum, part) => sum + countTokens(part), 0),
      countTokens(text),
      `${name}: the counts add up`,
    )
  }
})

t.test('a text no longer than the limit is one part', async (t) => {
  t.same(partsOf('', 10), [''])
  t.same(partsOf('short text', 10), ['short text'])
})

t.test('whatever the text and the limit, parts make it up and their counts add up to its count', async (t) => {
  const alphabet = fc.constantFrom('a', 'B', ' ', '  ', '\n', '\r\n', '\r', '\t', '1', '½', '😀', '语', '.', '(', 'é', 'e\u0301', "'s", '/', 'x'.repeat(70))
  const addsUp = (text: string, maxChars: number) => {
    const parts = partsOf(text, maxChars)
    return parts.join('') === text && parts.reduce((sum, part) => sum + countTokens(part), 0) === countTokens(text)
  }
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 3000 }).map((chars) => chars.join('')),
      fc.integer({ min: 1, max: 2500 }),
      addsUp,
    ),
    { numRuns: 200 },
  )
  // Short limits cut at nearly every place a cut is allowed, each kind of place many times over.
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 200 }).map((chars) => chars.join('')),
      fc.integer({ min: 1, max: 12 }),
      addsUp,
    ),
    { numRuns: 500 },
  )
  t.pass()
})

t.test('a cut run is one of more than RUN_LIMIT characters without whitespace', async (t) => {
  t.notOk(hasCutRun(`${'a'.repeat(RUN_LIMIT)} ${'b'.repeat(RUN_LIMIT)}\n${'c'.repeat(RUN_LIMIT)}`))
  t.ok(hasCutRun(`short ${'a'.repeat(RUN_LIMIT + 1)}`))
  const alphabet = fc.constantFrom('a', ' ', '\n', '\r', '\t', '\u00a0', '语', 'x'.repeat(30))
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 40 }).map((chars) => chars.join('')),
      (text) => hasCutRun(text) === new RegExp(`[^ \\t\\n\\r]{${RUN_LIMIT + 1}}`).test(text),
    ),
  )
})
