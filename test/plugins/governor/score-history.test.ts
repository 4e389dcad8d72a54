// The compliance score as it stood at the end of each day: the violations found in the window
// that ended then, open unless they had been resolved by then.
import t from 'tap'
import { scoreAt } from '../../../plugins/governor/logic/compliance-score.ts'
import { call } from '../../helpers/http.ts'
import { governedGateway } from './fixtures.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const DAY_MS = 86_400_000

t.test('scoreAt counts what was open then, inside the window only', async (t) => {
  const at = (day: number) => Date.parse('2026-03-01T00:00:00Z') + day * DAY_MS
  const found = [
    { severity: 'CRITICAL' as const, createdAt: new Date(at(1)).toISOString(), resolvedAt: new Date(at(3)).toISOString() },
    { severity: 'HIGH' as const, createdAt: new Date(at(2)).toISOString(), resolvedAt: null },
  ]
  t.equal(scoreAt(found, at(0.5), 7 * DAY_MS).score, 100, 'before anything was found')
  t.equal(scoreAt(found, at(1.5), 7 * DAY_MS).score, 80)
  t.equal(scoreAt(found, at(2.5), 7 * DAY_MS).score, 72)
  t.equal(scoreAt(found, at(3.5), 7 * DAY_MS).score, 92, 'the critical one was resolved by then')
  t.equal(scoreAt(found, at(9.5), 7 * DAY_MS).score, 100, 'both fell out of the window')
  t.same(scoreAt(found, at(3.5), 7 * DAY_MS).openViolations, { LOW: 0, MEDIUM: 0, HIGH: 1, CRITICAL: 0 })
})

t.test('GET /api/compliance/score/history answers a point per day, the last one now', async (t) => {
  const clock = manualClock(Date.parse('2026-03-02T10:00:00Z'))
  const gw = await governedGateway(t, {
    clock,
    changes: { governor: { customRules: [{ id: 'rule_falcon', name: 'Falcon', pattern: 'falcon', regex: false, weight: 10, severity: 'HIGH' }] } },
  })
  t.equal((await gw.ask('complete', 'About falcon')).status, 200)
  clock.advance(2 * DAY_MS)
  const history = await call(`${gw.url}/api/compliance/score/history?days=4&period=week`, { key: gw.pk })
  t.equal(history.status, 200)
  t.same(
    history.body.points.map((p: { at: string; score: number }) => [p.at, p.score]),
    [
      ['2026-03-01T23:59:59.999Z', 100],
      ['2026-03-02T23:59:59.999Z', 92],
      ['2026-03-03T23:59:59.999Z', 92],
      ['2026-03-04T10:00:00.000Z', 92],
    ],
  )
  t.equal(history.body.period, 'week')
  t.equal((await call(`${gw.url}/api/compliance/score/history?days=91`, { key: gw.pk })).status, 400)
  t.equal((await call(`${gw.url}/api/compliance/score/history`, { key: gw.sk })).status, 403)
})
