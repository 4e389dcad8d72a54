// Reads a V8 CPU profile (`node --cpu-prof`) into costs per source file and per function: self
// time (samples whose innermost frame is there) and inclusive time (samples with it anywhere on
// the stack, counted once per sample however deep the recursion). Optionally only the samples
// of a time window, so start-up (module loading, compiling) does not hide the request path.
import { fileURLToPath } from 'node:url'

export interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

export interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: readonly number[]
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly startTime: number
  readonly endTime: number
  readonly samples: readonly number[]
  /** Microseconds since the previous sample (the first: since startTime). */
  readonly timeDeltas: readonly number[]
}

export interface Cost {
  readonly name: string
  readonly selfMs: number
  readonly totalMs: number
}

export interface Costs {
  /** Time covered by samples, idle included. */
  readonly sampledMs: number
  /** The same without `(idle)`. */
  readonly busyMs: number
  readonly byFile: readonly Cost[]
  readonly byFunction: readonly Cost[]
}

/** Sample times on the clock of the profile's startTime: CLOCK_MONOTONIC in µs, as process.hrtime's. */
export interface TimeWindow {
  readonly fromUs: number
  readonly toUs: number
}

/** V8's pseudo-frames: not code, but where the thread was. */
const PSEUDO = new Set(['(root)', '(program)', '(idle)', '(garbage collector)'])

/**
 * Frames that mean the thread was waiting, not working. The main thread's idle time is V8's
 * `(idle)`; a piscina worker waiting for a task blocks in Atomics.wait, which the profiler
 * samples as if it ran.
 */
export function isIdle(frame: CallFrame): boolean {
  return frame.functionName === '(idle)' || (frame.functionName === 'atomicsWaitLoop' && frame.url.includes('/piscina/'))
}

/** A frame's file: relative to `root` for the project's own files, from `node_modules/` for packages, `(native)` without one. */
export function fileOf(frame: CallFrame, root: string): string {
  if (PSEUDO.has(frame.functionName) && frame.url === '') return frame.functionName
  if (frame.url === '') return '(native)'
  if (!frame.url.startsWith('file://')) return frame.url
  const path = fileURLToPath(frame.url)
  const packaged = path.lastIndexOf('/node_modules/')
  if (packaged >= 0) return path.slice(packaged + 1)
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path
}

export function functionOf(frame: CallFrame, root: string): string {
  const file = fileOf(frame, root)
  if (file.startsWith('(')) return frame.functionName === '' || file === frame.functionName ? file : `${frame.functionName} ${file}`
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName} ${file}:${frame.lineNumber + 1}`
}

function costsBy(
  profile: CpuProfile,
  keyOf: (frame: CallFrame) => string,
  window: TimeWindow | undefined,
): { costs: Cost[]; sampledMs: number; idleMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const stackKeys = new Map<number, ReadonlySet<string>>()
  const keysOnStack = (id: number): ReadonlySet<string> => {
    const known = stackKeys.get(id)
    if (known !== undefined) return known
    // Walk up to the nearest node already known, then fill the path back down (no deep recursion).
    const path: number[] = []
    for (let at: number | undefined = id; at !== undefined && !stackKeys.has(at); at = parentOf.get(at)) path.push(at)
    for (let i = path.length - 1; i >= 0; i--) {
      const nodeId = path[i]!
      const parent = parentOf.get(nodeId)
      const keys = new Set(parent === undefined ? [] : (stackKeys.get(parent) ?? []))
      const frame = byId.get(nodeId)!.callFrame
      if (frame.functionName !== '(root)') keys.add(keyOf(frame))
      stackKeys.set(nodeId, keys)
    }
    return stackKeys.get(id)!
  }
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  let sampledUs = 0
  let idleUs = 0
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (window !== undefined && (at < window.fromUs || at >= window.toUs)) continue
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0
    const id = profile.samples[i]!
    const frame = byId.get(id)!.callFrame
    sampledUs += us
    if (isIdle(frame)) idleUs += us
    const key = keyOf(frame)
    self.set(key, (self.get(key) ?? 0) + us)
    for (const k of keysOnStack(id)) total.set(k, (total.get(k) ?? 0) + us)
  }
  const costs = [...total.entries()].map(([name, us]) => ({ name, selfMs: (self.get(name) ?? 0) / 1000, totalMs: us / 1000 }))
  return { costs, sampledMs: sampledUs / 1000, idleMs: idleUs / 1000 }
}

/** Costs by file and by function; `root` is the project's directory, so its files read `proxy/http/server.ts`. */
export function costsOf(profile: CpuProfile, root: string, window?: TimeWindow): Costs {
  const files = costsBy(profile, (frame) => fileOf(frame, root), window)
  const functions = costsBy(profile, (frame) => functionOf(frame, root), window)
  return { sampledMs: files.sampledMs, busyMs: files.sampledMs - files.idleMs, byFile: files.costs, byFunction: functions.costs }
}

/** The `count` costliest by self time or by inclusive time; idle frames are left out. */
export function top(costs: readonly Cost[], by: 'selfMs' | 'totalMs', count: number): Cost[] {
  return costs
    .filter((c) => c.name !== '(idle)' && !c.name.startsWith('atomicsWaitLoop '))
    .sort((a, b) => b[by] - a[by])
    .slice(0, count)
}
