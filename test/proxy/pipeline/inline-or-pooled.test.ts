import t from 'tap'
import fc from 'fast-check'
import { inlineOrPooled } from '../../../proxy/pipeline/inline-or-pooled.ts'

t.test('pieces within both limits run inline, in order, until the budget is spent', async (t) => {
  t.same(inlineOrPooled([10, 50, 10, 20, 5], { maxInline: 20, budget: 30 }), { inline: [0, 2, 4], pooled: [1, 3] })
  t.same(inlineOrPooled([], { maxInline: 20, budget: 30 }), { inline: [], pooled: [] })
  t.same(inlineOrPooled([1, 1], { maxInline: 20, budget: 0 }), { inline: [], pooled: [0, 1] })
})

t.test('every piece goes to exactly one place, and the inline ones never pass a limit', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.nat(100)), fc.nat(100), fc.nat(300), (sizes, maxInline, budget) => {
      const { inline, pooled } = inlineOrPooled(sizes, { maxInline, budget })
      const all = [...inline, ...pooled].sort((a, b) => a - b)
      return (
        all.every((index, i) => index === i) &&
        all.length === sizes.length &&
        inline.every((i) => sizes[i]! <= maxInline) &&
        inline.reduce((sum, i) => sum + sizes[i]!, 0) <= budget
      )
    }),
  )
  t.pass()
})
