// Each stage's share of a thread's busy time in a V8 CPU profile. A sample belongs to the
// innermost frame on its stack that claims a stage (stages.ts): undici's code under the router's
// call is the model call's, pino's under the server's handler is the log line's. A stack with
// project helpers but no stage is "project helpers under no stage"; one with no project frame at
// all goes to the `other` bucket of its innermost package (undici, LMDB), GC, or node.
import { isIdle, type CpuProfile, type TimeWindow } from './cpu-profile.ts'
import { leftoverOf, ruleOf, STAGES, type Stage } from './stages.ts'

export interface StageShares {
  /** Samples in the window that were not idle. */
  readonly samples: number
  /** Their time, ms. */
  readonly busyMs: number
  /** Each stage's part of busyMs, 0 to 1; every stage is present. */
  readonly shares: Readonly<Record<Stage, number>>
  /** Busy ms of the project files the table does not name (they count as `unmapped`). */
  readonly unmappedFiles: ReadonlyMap<string, number>
}

interface Resolved {
  readonly stage: Stage | undefined
  /** A helper (`caller`) frame is on the stack. */
  readonly underHelper: boolean
  /** The innermost `other` bucket on the stack. */
  readonly leftover: Stage | undefined
  /** The file that made the stage `unmapped`. */
  readonly unmappedFile?: string
}

const NONE: Resolved = { stage: undefined, underHelper: false, leftover: undefined }

/** Stage shares of the samples in `window` (all of them without one); `root` is the project's directory. */
export function stageSharesOf(profile: CpuProfile, root: string, window?: TimeWindow): StageShares {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const resolved = new Map<number, Resolved>()
  const resolve = (id: number): Resolved => {
    // Walk out to the nearest node already resolved, then resolve the path back in (no deep recursion).
    const path: number[] = []
    for (let at: number | undefined = id; at !== undefined && !resolved.has(at); at = parentOf.get(at)) path.push(at)
    for (let i = path.length - 1; i >= 0; i--) {
      const nodeId = path[i]!
      const parent = parentOf.get(nodeId)
      const outer = parent === undefined ? NONE : resolved.get(parent)!
      const frame = byId.get(nodeId)!.callFrame
      const { rule, project } = ruleOf(frame, root)
      if (rule === undefined || rule === 'caller') {
        const leftover = leftoverOf(frame, root) ?? outer.leftover
        resolved.set(nodeId, { ...outer, underHelper: outer.underHelper || rule === 'caller', leftover })
      } else {
        resolved.set(nodeId, {
          stage: rule,
          underHelper: false,
          leftover: undefined,
          ...(rule === 'unmapped' && project !== undefined ? { unmappedFile: project } : {}),
        })
      }
    }
    return resolved.get(id)!
  }

  const us = Object.fromEntries(Object.keys(STAGES).map((stage) => [stage, 0])) as Record<Stage, number>
  const unmappedUs = new Map<string, number>()
  let samples = 0
  let busyUs = 0
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (window !== undefined && (at < window.fromUs || at >= window.toUs)) continue
    const id = profile.samples[i]!
    if (isIdle(byId.get(id)!.callFrame)) continue
    // A sample stands for the time until the next one.
    const took = profile.timeDeltas[i + 1] ?? 0
    const { stage, underHelper, leftover, unmappedFile } = resolve(id)
    const into: Stage = stage ?? (underHelper ? 'noStage' : (leftover ?? 'otherNode'))
    us[into] += took
    if (unmappedFile !== undefined) unmappedUs.set(unmappedFile, (unmappedUs.get(unmappedFile) ?? 0) + took)
    samples++
    busyUs += took
  }
  const shares = Object.fromEntries(Object.entries(us).map(([stage, stageUs]) => [stage, busyUs === 0 ? 0 : stageUs / busyUs])) as Record<Stage, number>
  return { samples, busyMs: busyUs / 1000, shares, unmappedFiles: new Map([...unmappedUs].map(([file, fileUs]) => [file, fileUs / 1000])) }
}
