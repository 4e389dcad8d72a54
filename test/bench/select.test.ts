import t from 'tap'
import { lanes, ROW } from '../../bench/lanes.ts'
import { selectSteps } from '../../bench/select.ts'

const all = lanes({ streamSteps: [32, 128, 512], scalingWorkers: [1, 2] })
const rowsOf = (only: string | undefined) => {
  const { rows } = selectSteps(all, only)
  return all.flatMap((lane) => lane.steps.flatMap((s) => s.rows.map((r) => r.name))).filter((name) => rows.has(name))
}

t.test('a full run takes every row but the optional Governor placement rows', async (t) => {
  const names = rowsOf(undefined)
  t.ok(names.includes(ROW.missNoCache))
  t.ok(names.includes(ROW.streamsChat(512)))
  t.notOk(names.some((n) => n.startsWith('governor ')))
})

t.test('--only picks matching rows plus their baselines, and optional rows when named', async (t) => {
  t.same(rowsOf('cache hit'), [ROW.staticFloor, ROW.hit])
  t.same(rowsOf(`=${ROW.governed}`), [ROW.jsonForwarder, ROW.governed])
  t.same(rowsOf(ROW.governed), [ROW.jsonForwarder, ROW.governed, ROW.governedShared], 'a plain text also matches the row on PostgreSQL + Redis')
  t.ok(rowsOf('governor').includes('governor 4 KB, scan in pool'))
  t.same(rowsOf('no such row'), [])
})

t.test('every baseline names a row of the same lane', async (t) => {
  for (const lane of all) {
    const names = new Set(lane.steps.flatMap((s) => s.rows.map((r) => r.name)))
    for (const r of lane.steps.flatMap((s) => s.rows)) if (r.baseline !== undefined) t.ok(names.has(r.baseline), `${r.name} -> ${r.baseline}`)
  }
})

t.test('=NAME picks exactly that row', async (t) => {
  t.same(rowsOf(`=${ROW.missNoCache}`), [ROW.jsonForwarder, ROW.missNoCache])
  t.ok(rowsOf(ROW.missNoCache).includes(ROW.oneMiss), 'a plain text also matches longer names')
})

t.test('the PostgreSQL + Redis rows run beside the LMDB rows they are compared with', async (t) => {
  t.same(rowsOf(`=${ROW.missShared}`), [ROW.jsonForwarder, ROW.missNoCache, ROW.missShared])
  t.same(rowsOf(`=${ROW.governedShared}`), [ROW.jsonForwarder, ROW.governed, ROW.governedShared])
  t.same(rowsOf(`=${ROW.oneMissShared}`), [ROW.oneDirect, ROW.oneMissShared])
  t.notOk(rowsOf(`=${ROW.missNoCache}`).includes(ROW.missShared), 'the LMDB row alone starts no PostgreSQL')
  t.ok(rowsOf(undefined).includes(ROW.missShared), 'a full run takes them')
  t.same(
    rowsOf(`=${ROW.missShared},=${ROW.oneMissShared}`),
    [ROW.jsonForwarder, ROW.missNoCache, ROW.missShared, ROW.oneDirect, ROW.oneMissShared],
    'a comma with no space after it separates two texts',
  )
})

t.test("--only scaling runs the served gateway's rows and the forwarder rows they are compared with, nothing else", async (t) => {
  t.same(rowsOf('scaling'), [
    ROW.scalingJsonForwarder,
    ROW.scalingJson(1),
    ROW.scalingJson(2),
    ROW.scalingJsonLimited(1),
    ROW.scalingJsonLimited(2),
    ROW.scalingStreamForwarder,
    ROW.scalingChat(1),
    ROW.scalingChat(2),
  ])
  t.same(
    selectSteps(all, 'scaling').lanes.map(({ lane }) => lane.name),
    ['scaling'],
  )
  t.same(
    rowsOf(`=${ROW.scalingJson(2)}`),
    [ROW.scalingJsonForwarder, ROW.scalingJson(1), ROW.scalingJson(2)],
    'two workers bring one worker, and one worker the forwarder',
  )
  t.ok(rowsOf(undefined).includes(ROW.scalingChat(2)), 'a full run takes them')
  const wider = lanes({ streamSteps: [32], scalingWorkers: [1, 2, 4, 8] })
  const names = wider.flatMap((lane) => lane.steps.flatMap((s) => s.rows))
  t.equal(names.find((r) => r.name === ROW.scalingJson(8))?.baseline, ROW.scalingJson(1), 'every N is compared with one worker')
  t.equal(names.find((r) => r.name === ROW.scalingJsonLimited(2))?.baseline, ROW.scalingJsonLimited(1), "a limited plan's N workers with its one worker")
  t.equal(names.find((r) => r.name === ROW.scalingJsonLimited(1))?.baseline, ROW.scalingJson(1), 'and its one worker with the unlimited one')
})
