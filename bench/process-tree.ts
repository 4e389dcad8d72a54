// CPU time of processes from /proc, and of the processes they started: PostgreSQL forks a process
// per connection, which a row's CPU must count. Linux only; elsewhere a process counts 0.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

export const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  } catch {
    return 100
  }
})()

interface ProcessTicks {
  readonly parent: number
  /** utime + stime, all threads. */
  readonly own: number
  /** utime + stime of the children it has waited for. */
  readonly reaped: number
}

function statOf(pid: number, thread?: number): ProcessTicks | undefined {
  try {
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { parent: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), reaped: Number(fields[13]) + Number(fields[14]) }
  } catch {
    return undefined
  }
}

/** utime + stime of a process (all its threads), in ticks; 0 once it is gone. */
export function processTicks(pid: number): number {
  return statOf(pid)?.own ?? 0
}

export interface ThreadTicks {
  /** The thread's name (/proc/<pid>/task/<tid>/comm): MainThread, V8Worker, libuv-worker, WorkerThread… */
  readonly name: string
  /** utime + stime. */
  readonly ticks: number
}

/** utime + stime of each live thread of a process, by thread id (the main thread's is the pid); empty once it is gone. */
export function threadTicks(pid: number): Map<number, ThreadTicks> {
  const threads = new Map<number, ThreadTicks>()
  let ids: string[]
  try {
    ids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return threads
  }
  for (const id of ids) {
    const stat = statOf(pid, Number(id))
    if (stat === undefined) continue
    let name: string
    try {
      name = readFileSync(`/proc/${pid}/task/${id}/comm`, 'utf8').trim()
    } catch {
      continue
    }
    threads.set(Number(id), { name, ticks: stat.own })
  }
  return threads
}

/** `roots` and every process running now that descends from one of them. */
export function withDescendants(roots: readonly number[]): number[] {
  let processes: Array<{ pid: number; parent: number }>
  try {
    processes = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .flatMap((name) => {
        const stat = statOf(Number(name))
        return stat === undefined ? [] : [{ pid: Number(name), parent: stat.parent }]
      })
  } catch {
    return [...roots]
  }
  const tree = new Set(roots)
  for (let grew = true; grew; ) {
    grew = false
    for (const { pid, parent } of processes) {
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid)
        grew = true
      }
    }
  }
  return [...tree]
}

/** CPU time of `roots`, their descendants, and the descendants that ended, in µs. */
export function treeCpuMicros(roots: readonly number[]): number {
  const ticks = withDescendants(roots).reduce((sum, pid) => sum + processTicks(pid), 0) + roots.reduce((sum, pid) => sum + (statOf(pid)?.reaped ?? 0), 0)
  return (ticks / TICKS_PER_SECOND) * 1e6
}
