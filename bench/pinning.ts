// CPU placement, as the peer benchmark does it: where `taskset` exists and there are at least two
// CPUs, the load generator (this process, all its threads) runs on CPU 0 and every server on the
// last CPU, so the load generator never takes CPU from the server under test. On two cores a
// proxy then shares its core with the mock upstream, exactly like the lean forwarder it is
// compared with.
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
  if (!hasTaskset()) return { serverCpu: undefined, description: `off (taskset not found; Debian package util-linux); the load generator and the servers share the ${cpus} CPUs` }
  if (cpus < 2) return { serverCpu: undefined, description: 'off (one CPU)' }
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })
  const serverCpu = cpus - 1
  return {
    serverCpu,
    description: `taskset: load generator on CPU 0, every server on CPU ${serverCpu}${cpus === 2 ? ' (so a proxy shares its core with the mock upstream)' : ''}`,
  }
}

/** The argv that starts `command` on `cpu`, or `command` itself when there is no CPU to pin to. */
export function pinnedCommand(command: readonly string[], cpu: number | undefined): string[] {
  return cpu === undefined ? [...command] : ['taskset', '-c', String(cpu), ...command]
}
