// The CPU the rest of the machine used while a row ran: all cores' busy time (softirq included)
// minus the CPU of this benchmark's own processes, as a percentage of one core. Other work on a
// shared machine shows up here; so does a few % of our own loopback traffic, which the kernel
// charges to no process. Linux only (/proc); elsewhere the figure is missing.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { processTicks, TICKS_PER_SECOND, withDescendants } from './process-tree.ts'

/** user + nice + system + irq + softirq + steal over all CPUs, in ticks. */
function busyTicks(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
  return fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]! + fields[7]!
}

export interface CpuWindow {
  /** CPU used outside our processes since the window opened, in % of one core; undefined without /proc. */
  otherCpuPct(): number | undefined
}

/** Opens a window over the machine's CPU; `ours` are the benchmark's processes (this one included), with the servers they started. */
export function openCpuWindow(ours: readonly number[]): CpuWindow {
  const pids = withDescendants([...new Set([process.pid, ...ours])])
  let before: { busy: number; ours: number; at: number } | undefined
  try {
    before = { busy: busyTicks(), ours: pids.reduce((sum, pid) => sum + processTicks(pid), 0), at: performance.now() }
  } catch {
    before = undefined
  }
  return {
    otherCpuPct() {
      if (before === undefined) return undefined
      const seconds = (performance.now() - before.at) / 1000
      const busy = busyTicks() - before.busy
      const ourTicks = pids.reduce((sum, pid) => sum + processTicks(pid), 0) - before.ours
      return Math.max(0, (100 * (busy - ourTicks)) / TICKS_PER_SECOND / seconds)
    },
  }
}
