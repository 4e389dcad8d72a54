import t from 'tap'
import { admitHold, grantLease } from '../../../../plugins/metering/logic/admit.ts'

const month = (usedMicros: number, reservedMicros: number) => ({ usedMicros, reservedMicros })

t.test('a hold is admitted when the project has exactly that much left', async (t) => {
  t.same(admitHold(400, { row: month(500, 100), limitMicros: 1_000 }), { ok: true })
})

t.test('a hold one micro beyond what the project has left is refused, with what is left', async (t) => {
  t.same(admitHold(401, { row: month(500, 100), limitMicros: 1_000 }), { ok: false, availableMicros: 400 })
})

t.test('a project over its limit reports nothing left, not a negative amount', async (t) => {
  t.same(admitHold(1, { row: month(1_200, 0), limitMicros: 1_000 }), { ok: false, availableMicros: 0 })
})

t.test('a key with a budget of its own must cover the hold too', async (t) => {
  const project = { row: month(0, 0), limitMicros: 10_000 }
  t.same(admitHold(300, project, { row: month(200, 0), limitMicros: 500 }), { ok: true }, 'exactly covered by the key')
  t.same(admitHold(301, project, { row: month(200, 0), limitMicros: 500 }), { ok: false, availableMicros: 300, byKey: true }, 'one micro short for the key')
})

t.test("a hold both budgets refuse is the project's refusal", async (t) => {
  t.same(admitHold(600, { row: month(0, 500), limitMicros: 1_000 }, { row: month(0, 0), limitMicros: 100 }), { ok: false, availableMicros: 500 })
})

t.test('a lease is granted what it needs and the spare of the rest, or nothing when the month cannot cover the need', async (t) => {
  const spare = (beyond: number) => Math.floor(beyond / 2)
  t.same(grantLease(month(200, 0), 1_000, 400, spare), { grantedMicros: 400 + 200 })
  t.same(grantLease(month(200, 400), 1_000, 400, spare), { grantedMicros: 400 }, 'exactly covered: nothing beyond to spare')
  t.same(grantLease(month(200, 400), 1_000, 401, spare), { availableMicros: 400 }, 'one micro short')
})
