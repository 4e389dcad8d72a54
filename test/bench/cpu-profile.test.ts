import t from 'tap'
import { costsOf, fileOf, top, type CpuProfile } from '../../bench/cpu-profile.ts'

const ROOT = '/srv/tollgate'
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber })

// (root) -> handle (server.ts) -> parse (body.ts) -> handle (server.ts, recursion)
//        -> (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
    { id: 2, callFrame: frame('handle', `file://${ROOT}/proxy/http/server.ts`, 9), children: [3] },
    { id: 3, callFrame: frame('parse', `file://${ROOT}/proxy/http/body.ts`, 19), children: [4] },
    { id: 4, callFrame: frame('handle', `file://${ROOT}/proxy/http/server.ts`, 9) },
    { id: 5, callFrame: frame('(idle)', '') },
  ],
  startTime: 1000,
  endTime: 2000,
  // Each sample stands for the delta that follows it: 100 µs each, the last one 0.
  samples: [2, 3, 4, 4, 5, 3],
  timeDeltas: [0, 100, 100, 100, 100, 100],
}

t.test('self time goes to the innermost frame, inclusive time once per sample however deep the recursion', async (t) => {
  const costs = costsOf(profile, ROOT)
  const byFile = new Map(costs.byFile.map((c) => [c.name, c]))
  t.same(byFile.get('proxy/http/server.ts'), { name: 'proxy/http/server.ts', selfMs: 0.3, totalMs: 0.4 })
  t.same(byFile.get('proxy/http/body.ts'), { name: 'proxy/http/body.ts', selfMs: 0.1, totalMs: 0.3 })
  t.equal(costs.sampledMs, 0.5)
  t.equal(costs.busyMs, 0.4, 'idle samples are not busy')
  const byFunction = new Map(costs.byFunction.map((c) => [c.name, c]))
  t.same(byFunction.get('handle proxy/http/server.ts:10'), { name: 'handle proxy/http/server.ts:10', selfMs: 0.3, totalMs: 0.4 })
})

t.test('a window keeps only the samples taken inside it', async (t) => {
  // Sample times: 1000, 1100, 1200, 1300, 1400, 1500.
  const costs = costsOf(profile, ROOT, { fromUs: 1100, toUs: 1300 })
  t.equal(costs.sampledMs, 0.2)
  t.same(new Map(costs.byFile.map((c) => [c.name, c.selfMs])).get('proxy/http/server.ts'), 0.1)
})

t.test('top leaves idle frames out and sorts by the chosen cost', async (t) => {
  const costs = costsOf(profile, ROOT)
  t.same(
    top(costs.byFile, 'totalMs', 2).map((c) => c.name),
    ['proxy/http/server.ts', 'proxy/http/body.ts'],
  )
  t.notOk(top(costs.byFile, 'selfMs', 10).some((c) => c.name === '(idle)'))
})

t.test('fileOf names project files from the root, packages from node_modules, and frames without a file', async (t) => {
  t.equal(fileOf(frame('f', `file://${ROOT}/plugins/cache/index.ts`), ROOT), 'plugins/cache/index.ts')
  t.equal(fileOf(frame('f', 'file:///elsewhere/node_modules/undici/lib/core/util.js'), ROOT), 'node_modules/undici/lib/core/util.js')
  t.equal(fileOf(frame('f', 'node:internal/streams/writable'), ROOT), 'node:internal/streams/writable')
  t.equal(fileOf(frame('writev', ''), ROOT), '(native)')
  t.equal(fileOf(frame('(garbage collector)', ''), ROOT), '(garbage collector)')
})
