import t from 'tap'
import { summarise } from '../../bench/compare.ts'
import { judge } from '../../bench/goals.ts'
import { ROW } from '../../bench/lanes.ts'
import type { Figures, RowResult } from '../../bench/rows.ts'

function row(name: string, kind: RowResult['kind'], figures: Partial<Figures>, baseline?: string, label = name): RowResult {
  return {
    name,
    kind,
    label,
    isAsNamed: label === name,
    figures: { ok: 100, failed: 0, ...figures },
    notes: [],
    ...(baseline === undefined ? {} : { baseline }),
  }
}

const repeat = (forwarder: number, gateway: number): RowResult[] => [
  row(ROW.jsonForwarder, 'throughput', { rps: forwarder }),
  row(ROW.missNoCache, 'throughput', { rps: gateway }, ROW.jsonForwarder),
]

t.test('a ratio is taken within each repeat, then the median of the ratios is reported', async (t) => {
  // Medians of req/s would give 700/1000 = 0.70; the per-repeat ratios are 0.60, 0.65, 0.80.
  const [forwarder, miss] = summarise([repeat(1000, 600), repeat(800, 520), repeat(1200, 960)])
  t.equal(forwarder!.figures.rps, 1000)
  t.equal(miss!.derived.ratio, 0.65)
  t.same(miss!.spreads.ratio, { median: 0.65, min: 0.6, max: 0.8 })
  t.equal(miss!.figures.ok, 300, 'counts add up over repeats')
})

t.test('latency rows report what they add over their baseline', async (t) => {
  const [, gateway] = summarise([
    [
      row(ROW.oneDirect, 'latency', { p50Ms: 0.4, p99Ms: 0.9, ttfbP50Ms: 0.4, ttfbP99Ms: 0.9 }),
      row(ROW.oneMiss, 'latency', { p50Ms: 0.7, p99Ms: 2.1, ttfbP50Ms: 0.7, ttfbP99Ms: 2.1 }, ROW.oneDirect),
    ],
  ])
  t.equal(gateway!.derived.addedP50Ms!.toFixed(3), '0.300')
  t.equal(gateway!.derived.addedP99Ms!.toFixed(3), '1.200')
})

t.test('a goal passes or fails on the median, and is not judged when the row is not as named or failed', async (t) => {
  const checks = judge(summarise([repeat(1000, 650)]))
  t.match(checks, [{ row: ROW.missNoCache, verdict: 'pass', actual: '0.65x' }])
  t.match(judge(summarise([repeat(1000, 550)])), [{ verdict: 'fail' }])
  const relabelled = [
    row(ROW.jsonForwarder, 'throughput', { rps: 1000 }),
    row(ROW.missNoCache, 'throughput', { rps: 900 }, ROW.jsonForwarder, 'miss (NOT MISS: HIT)'),
  ]
  t.match(judge(summarise([relabelled])), [{ verdict: 'not judged', reason: 'miss (NOT MISS: HIT)' }])
  const failing = [row(ROW.jsonForwarder, 'throughput', { rps: 1000 }), row(ROW.missNoCache, 'throughput', { rps: 900, failed: 3 }, ROW.jsonForwarder)]
  t.match(judge(summarise([failing])), [{ verdict: 'not judged', reason: '3 failed answers' }])
})

t.test("the CPU ratio is the row's CPU per answer over its baseline's: what an answer costs in forwarder answers", async (t) => {
  const [, miss] = summarise([
    [
      row(ROW.jsonForwarder, 'throughput', { rps: 1000, cpuMicrosPerAnswer: 80 }),
      row(ROW.missNoCache, 'throughput', { rps: 300, cpuMicrosPerAnswer: 320 }, ROW.jsonForwarder),
    ],
  ])
  t.equal(miss!.derived.cpuRatio, 4)
})

t.test('two workers are judged on the store commits they take per answer', async (t) => {
  const scaling = (commits: number): RowResult[] => [
    row(ROW.scalingJsonForwarder, 'throughput', { rps: 1000 }),
    row(ROW.scalingJson(1), 'throughput', { rps: 300, storeCommitsPerAnswer: 0.5 }, ROW.scalingJsonForwarder),
    row(ROW.scalingJson(2), 'throughput', { rps: 500, storeCommitsPerAnswer: commits }, ROW.scalingJson(1)),
  ]
  t.match(judge(summarise([scaling(0.04)])), [{ row: ROW.scalingJson(2), verdict: 'pass', actual: '0.040' }])
  t.match(judge(summarise([scaling(0.4)])), [{ row: ROW.scalingJson(2), verdict: 'fail', actual: '0.400' }])
})
