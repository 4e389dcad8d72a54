import t from 'tap'
import { summarise } from '../../bench/compare.ts'
import { ROW } from '../../bench/lanes.ts'
import { formatReport, type RunInfo } from '../../bench/report.ts'
import type { Figures, RowResult } from '../../bench/rows.ts'

const info: RunInfo = {
  startedAt: '2026-11-27T00:00:00.000Z',
  node: 'v24.21.0',
  cpus: 2,
  cpuModel: 'test CPU',
  pinning: 'off (--pin off)',
  connections: 50,
  sustainedConnections: 100,
  warmupSeconds: 2,
  durationSeconds: 10,
  repeats: 1,
  stallMs: 1000,
  lanes: [],
  wallSeconds: 60,
}

function row(name: string, kind: RowResult['kind'], figures: Partial<Figures>, baseline?: string): RowResult {
  return { name, kind, label: name, isAsNamed: true, figures: { ok: 100, failed: 0, ...figures }, notes: [], ...(baseline === undefined ? {} : { baseline }) }
}

const report = (rows: RowResult[]) => formatReport({ info, rows: summarise([rows]), board: [], checks: [] })
const lineOf = (text: string, start: string) => text.split('\n').find((line) => line.startsWith(start)) ?? ''
const cellsOf = (line: string, name: string) =>
  line
    .slice(name.length)
    .trim()
    .split(/\s{2,}/)

t.test("CPU per answer and its ratio to the baseline are the first figures after the row's name", async (t) => {
  const text = report([
    row(ROW.jsonForwarder, 'throughput', { rps: 6000, cpuMicrosPerAnswer: 90 }),
    row(ROW.missNoCache, 'throughput', { rps: 1500, cpuMicrosPerAnswer: 405, p50Ms: 30, p99Ms: 60 }, ROW.jsonForwarder),
    row(ROW.streamsForwarder(32), 'streams', { rps: 500, cpuMicrosPerAnswer: 100 }),
    row(ROW.streamsChat(32), 'streams', { rps: 450, cpuMicrosPerAnswer: 250 }, ROW.streamsForwarder(32)),
  ])
  t.match(lineOf(text, 'row '), /^row\s+cpu µs\/ans\s+x base CPU\s+req\/s\s+x base\s/)
  t.same(cellsOf(lineOf(text, ROW.missNoCache), ROW.missNoCache).slice(0, 4), ['405', '4.50', '1500', '0.25'])
  t.match(text, /^row\s+cpu µs\/stream\s+x fwd CPU\s+streams\/s\s+x fwd\s/m)
  t.same(cellsOf(lineOf(text, ROW.streamsChat(32)), ROW.streamsChat(32)).slice(0, 4), ['250', '2.50', '450', '0.90'])
  t.notMatch(lineOf(text, 'row '), /commits/, 'no commits column when no row counts commits')
  t.notMatch(text, /^Scaling/m)
})

t.test('the scaling rows get a commits column and a table by worker count', async (t) => {
  const text = report([
    row(ROW.scalingJsonForwarder, 'throughput', { rps: 6000, cpuMicrosPerAnswer: 90 }),
    row(ROW.scalingJson(1), 'throughput', { rps: 1500, cpuMicrosPerAnswer: 400, storeCommitsPerAnswer: 0.25 }, ROW.scalingJsonForwarder),
    row(ROW.scalingJson(2), 'throughput', { rps: 2400, cpuMicrosPerAnswer: 440, storeCommitsPerAnswer: 0.125 }, ROW.scalingJson(1)),
    row(ROW.scalingStreamForwarder, 'throughput', { rps: 5000, cpuMicrosPerAnswer: 100 }),
    row(ROW.scalingChat(1), 'throughput', { rps: 1000, cpuMicrosPerAnswer: 600, storeCommitsPerAnswer: 0.5 }, ROW.scalingStreamForwarder),
    row(ROW.scalingChat(2), 'throughput', { rps: 1700, cpuMicrosPerAnswer: 650, storeCommitsPerAnswer: 0.25 }, ROW.scalingChat(1)),
  ])
  t.match(lineOf(text, 'row '), /\sfailed\s+commits\/ans\s+up\/ans\s/)
  t.match(lineOf(text, ROW.scalingJson(2)), /\s0\.125$/)
  t.match(text, /^Scaling \(`tollgate serve --workers N`/m)
  t.match(
    lineOf(text, 'workers '),
    /^workers\s+json cpu µs\/ans\s+json req\/s\s+x 1 worker\s+json commits\/ans\s+stream cpu µs\/ans\s+streams\/s\s+x 1 worker\s+stream commits\/ans$/,
  )
  t.same(cellsOf(lineOf(text, '1 '), ''), ['1', '400', '1500', '1.00', '0.250', '600', '1000', '1.00', '0.500'])
  t.same(cellsOf(lineOf(text, '2 '), ''), ['2', '440', '2400', '1.60', '0.125', '650', '1700', '1.70', '0.250'])
})
