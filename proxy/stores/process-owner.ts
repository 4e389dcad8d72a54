// Which process holds a reservation. A reservation whose process is gone was left by a crash.
import { randomUUID } from 'node:crypto'

export const SELF_OWNER = `${process.pid}:${randomUUID()}`

export function isLiveOwner(owner: string): boolean {
  if (owner === SELF_OWNER) return true
  const pid = Number(owner.split(':')[0])
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
