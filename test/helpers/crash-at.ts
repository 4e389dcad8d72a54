// What makes a gateway spawned by a test die at a crash point (proxy/kit/crash-points.ts): node
// arguments that preload crash-points.ts, and the variable that names the point.
import { fileURLToPath } from 'node:url'
import type { CrashPoint } from '../../proxy/kit/crash-points.ts'

const PRELOAD = fileURLToPath(new URL('./crash-points.ts', import.meta.url))

export interface CrashSetup {
  /** Put before the script in the node command line. */
  readonly nodeArgs: readonly string[]
  readonly env: NodeJS.ProcessEnv
}

export function crashAt(point: CrashPoint): CrashSetup {
  return { nodeArgs: ['--import', PRELOAD], env: { TOLLGATE_TEST_CRASH_AT: point } }
}
