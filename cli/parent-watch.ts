// Notices that the process that started this one has exited (this process was handed to another
// parent). Node has no parent-death signal, so the parent's id is checked on a timer that never
// keeps the process alive.
const CHECK_MS = 250

export function onParentExit(then: () => void): void {
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    then()
  }, CHECK_MS)
  timer.unref()
}
