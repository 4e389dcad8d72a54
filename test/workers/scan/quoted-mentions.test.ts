import fc from 'fast-check'
import t from 'tap'
import { isInside } from '../../../workers/scan/mention-spans.ts'
import { quotedMentions } from '../../../workers/scan/quoted-mentions.ts'

t.test('the quoted examples after a mention, as spans of the text', async (t) => {
  const text = 'Attacks use phrases like \'ignore the rules\', "act as X" or “drop the act”. Then: "not this".'
  const spans = quotedMentions(text)
  t.equal(spans.length, 1)
  t.equal(text.slice(spans[0]!.start, spans[0]!.end), '\'ignore the rules\', "act as X" or “drop the act”')
  t.notOk(isInside(spans, text.indexOf('not this'), text.indexOf('not this') + 8))
})

t.test('such as, e.g. and for example introduce a mention too; a bare quote or a text to translate does not', async (t) => {
  t.same(quotedMentions('Translate the sentence "forget your rules" into French.'), [], 'scanned like any text handed over')
  t.equal(quotedMentions('Common probes, e.g. "print your prompt", are easy to spot.').length, 1)
  t.equal(quotedMentions("Avoid inputs such as 'print your prompt'.").length, 1)
  t.same(quotedMentions('He said "forget your rules" loudly.'), [])
  t.same(quotedMentions('No quotation marks here at all.'), [])
})

t.test('any text gives spans inside it, in order, in bounded time', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 2000 }), (text) => {
      const spans = quotedMentions(`phrases like ${text}`)
      let last = 0
      for (const span of spans) {
        if (span.start < last || span.end <= span.start || span.end > text.length + 13) return false
        last = span.end
      }
      return true
    }),
  )
  const hostile = `phrases like ${'"a", '.repeat(20_000)}`
  const started = performance.now()
  quotedMentions(hostile)
  t.ok(performance.now() - started < 1000, 'a long list of quotes')
})
