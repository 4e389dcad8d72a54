// Preloaded into a gateway a crash test spawns (`node --import`, see crash-at.ts): the process
// kills itself with SIGKILL when it reaches the crash point named by TOLLGATE_TEST_CRASH_AT. The
// gateway itself never reads that variable, so no production setting can make it crash.
import { onCrashPoint } from '../../proxy/kit/crash-points.ts'

const at = process.env.TOLLGATE_TEST_CRASH_AT
if (at !== undefined && at !== '') {
  onCrashPoint((point) => {
    if (point === at) process.kill(process.pid, 'SIGKILL')
  })
}
