// Record ids: a kind prefix and a lowercase ulid whose time part comes from the gateway's clock,
// so ids sort by creation time and tests control them.
import type { Clock } from '../../proxy/kit/clock.ts'
import { createUlids } from '../../proxy/kit/ids.ts'

export type NewId = (prefix: 'wh_' | 'dlv_' | 'evt_' | 'alt_') => string

export function createIds(clock: Clock): NewId {
  const next = createUlids(clock)
  return (prefix) => `${prefix}${next().toLowerCase()}`
}
