import t from 'tap'
import { clusterPlacement, pinnedCommand, scalingWorkers } from '../../bench/pinning.ts'

t.test('the scaling rows take 1 and 2 workers, and each further power of two that gets cores of its own', async (t) => {
  t.same(scalingWorkers(1), [1, 2])
  t.same(scalingWorkers(2), [1, 2])
  t.same(scalingWorkers(4), [1, 2])
  t.same(scalingWorkers(6), [1, 2, 4])
  t.same(scalingWorkers(16), [1, 2, 4, 8])
  t.same(scalingWorkers(18), [1, 2, 4, 8, 16])
})

t.test('a cluster gets cores of its own between the load generator and the servers where the machine has them', async (t) => {
  // 16 CPUs: load generator on 0, servers on 15.
  t.match(clusterPlacement(15, 8), { cpus: [1, 2, 3, 4, 5, 6, 7, 8], description: /--workers 8 on CPUs 1-8, a core each/ })
  t.match(clusterPlacement(15, 1), { cpus: [1], description: /--workers 1 on CPU 1, a core each/ })
})

t.test("on 2 CPUs one worker shares the mock's core, and two share both cores with the load generator, and say so", async (t) => {
  t.match(clusterPlacement(1, 1), { cpus: [1], description: /--workers 1 on CPU 1, sharing CPU 1 with the mock \(load generator alone on CPU 0\)/ })
  t.match(clusterPlacement(1, 2), {
    cpus: [0, 1],
    description:
      /--workers 2 on CPUs 0-1, sharing them with the load generator \(CPU 0\) and the mock \(CPU 1\): 2 workers and the load generator need 3 cores, this machine has 2/,
  })
})

t.test('unpinned, a cluster runs anywhere, and taskset is given a CPU list', async (t) => {
  t.match(clusterPlacement(undefined, 2), { cpus: undefined, description: /not pinned/ })
  t.same(pinnedCommand(['node', 'x.ts'], undefined), ['node', 'x.ts'])
  t.same(pinnedCommand(['node', 'x.ts'], 3), ['taskset', '-c', '3', 'node', 'x.ts'])
  t.same(pinnedCommand(['node', 'x.ts'], [0, 1]), ['taskset', '-c', '0,1', 'node', 'x.ts'])
})
