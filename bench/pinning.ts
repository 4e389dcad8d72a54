// CPU placement, as the peer benchmark does it: where `taskset` exists and there are at least two
// CPUs, the load generator (this process, all its threads) runs on CPU 0 and every server on the
// last CPU, so the load generator never takes CPU from the server under test. On two cores a
// proxy then shares its core with the mock upstream, exactly like the lean forwarder it is
// compared with. A `--workers N` cluster gets N cores where the machine has them (clusterPlacement).
import { execFileSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

export interface Pinning {
  /** The CPU every server is started on; undefined when not pinned. */
  readonly serverCpu: number | undefined
  /** One line for the report. */
  readonly description: string
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Pins this process to CPU 0 when `mode` is 'auto' and pinning is possible, and says what was done. */
export function pinLoadGenerator(mode: 'auto' | 'off'): Pinning {
  const cpus = availableParallelism()
  if (mode === 'off') return { serverCpu: undefined, description: `off (--pin off); the load generator and the servers share the ${cpus} CPUs` }
  if (!hasTaskset())
    return {
      serverCpu: undefined,
      description: `off (taskset not found; Debian package util-linux); the load generator and the servers share the ${cpus} CPUs`,
    }
  if (cpus < 2) return { serverCpu: undefined, description: 'off (one CPU)' }
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })
  const serverCpu = cpus - 1
  return {
    serverCpu,
    description: `taskset: load generator on CPU 0, every server on CPU ${serverCpu}${cpus === 2 ? ' (so a proxy shares its core with the mock upstream)' : ''}`,
  }
}

/** The argv that starts `command` on `cpus`, or `command` itself when there is no CPU to pin to. */
export function pinnedCommand(command: readonly string[], cpus: number | readonly number[] | undefined): string[] {
  return cpus === undefined ? [...command] : ['taskset', '-c', [cpus].flat().join(','), ...command]
}

export interface ClusterPlacement {
  /** The CPUs the cluster's processes run on; undefined when not pinned. */
  readonly cpus: readonly number[] | undefined
  /** One line for the row's notes. */
  readonly description: string
}

const span = (cpus: readonly number[]) => (cpus.length === 1 ? `CPU ${cpus[0]}` : `CPUs ${cpus[0]}-${cpus[cpus.length - 1]}`)

/**
 * Where a `tollgate serve --workers N` cluster runs, given the servers' CPU (the last one, see
 * pinLoadGenerator; undefined when not pinned): on N cores of its own between the load generator
 * (CPU 0) and the other servers (the last CPU) where there are enough; else beside the other
 * servers but off the load generator's core; else on every CPU, the load generator's included.
 */
export function clusterPlacement(serverCpu: number | undefined, workers: number): ClusterPlacement {
  const named = `--workers ${workers}`
  if (serverCpu === undefined) return { cpus: undefined, description: `${named}: not pinned, sharing the CPUs with the load generator and the mock` }
  const cpuCount = serverCpu + 1
  const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)
  if (workers <= cpuCount - 2) {
    const cpus = range(1, workers)
    return { cpus, description: `${named} on ${span(cpus)}, a core each (load generator on CPU 0, mock on CPU ${serverCpu})` }
  }
  if (workers <= cpuCount - 1) {
    const cpus = range(1, workers)
    return { cpus, description: `${named} on ${span(cpus)}, sharing CPU ${serverCpu} with the mock (load generator alone on CPU 0)` }
  }
  const cpus = range(0, cpuCount)
  return {
    cpus,
    description: `${named} on ${span(cpus)}, sharing them with the load generator (CPU 0) and the mock (CPU ${serverCpu}): ${workers} workers and the load generator need ${workers + 1} cores, this machine has ${cpuCount}`,
  }
}

/** The worker counts of the scaling rows: 1, 2 and each further power of two that gets cores of its own. */
export function scalingWorkers(cpuCount: number): number[] {
  const counts = [1, 2]
  while (counts[counts.length - 1]! * 2 <= cpuCount - 2) counts.push(counts[counts.length - 1]! * 2)
  return counts
}
