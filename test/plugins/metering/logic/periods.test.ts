import t from 'tap'
import fc from 'fast-check'
import { dayKey, daysOf, monthKey, periodRange } from '../../../../plugins/metering/logic/periods.ts'

t.test('day and month keys agree with the ISO date of any instant, in any order of calls', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { minLength: 1, maxLength: 20 }), (instants) =>
      instants.every((ms) => dayKey(ms) === new Date(ms).toISOString().slice(0, 10) && monthKey(ms) === new Date(ms).toISOString().slice(0, 7)),
    ),
  )
})

t.test('periods are the UTC day, the ISO week from Monday, and the calendar month', async (t) => {
  const thursday = Date.UTC(2026, 10, 19, 23, 59)
  t.same(periodRange('day', thursday), { start: '2026-11-19', end: '2026-11-19' })
  t.same(periodRange('week', thursday), { start: '2026-11-16', end: '2026-11-22' })
  t.same(periodRange('month', thursday), { start: '2026-11-01', end: '2026-11-30' })
  t.same(periodRange('week', Date.UTC(2026, 10, 22, 12)), { start: '2026-11-16', end: '2026-11-22' }, 'Sunday ends the week')
  t.equal(daysOf(periodRange('month', Date.UTC(2024, 1, 10))).length, 29, 'a leap February')
})
