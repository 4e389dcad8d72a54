// The Governor's config section: defaults, bounds, and no unknown keys.
import t from 'tap'
import { governorSchema } from '../../../plugins/governor/schema.ts'
import { pluginConfigError } from '../../helpers/plugin-config.ts'

t.test('defaults scan up to 1 KiB per text and 2 KiB per request inline, remember 5000 verdicts and leave the learned model off', async (t) => {
  t.same(governorSchema.parse({}), { inlineScanChars: 1024, inlineBudgetChars: 2048, memoEntries: 5000, learnedModel: false })
  t.notOk(governorSchema.safeParse({ learnedModel: 'yes' }).success)
})

t.test('refuses unknown keys and negative or fractional sizes', async (t) => {
  t.notOk(governorSchema.safeParse({ inlineScanChar: 10 }).success)
  t.notOk(governorSchema.safeParse({ inlineScanChars: -1 }).success)
  t.notOk(governorSchema.safeParse({ memoEntries: 1.5 }).success)
  t.ok(governorSchema.safeParse({ inlineScanChars: 0, memoEntries: 0 }).success, 'zero sends every text to the pool and remembers nothing')
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('governor', { memoEntries: 1.5 }), /^invalid configuration: plugins\.governor\.memoEntries: /)
  t.match(pluginConfigError('governor', { inlineScanChar: 10 }), /^invalid configuration: plugins\.governor: Unrecognized key: "inlineScanChar"/)
})
