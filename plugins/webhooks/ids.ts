// Record ids: a kind prefix and a lowercase ulid whose time part comes from the gateway's clock,
// so ids sort by creation time and tests control them.
import { monotonicFactory } from 'ulid'
import type { Clock } from '../../proxy/clock.ts'

export type NewId = (prefix: 'wh_' | 'dlv_' | 'evt_' | 'alt_') => string

export function createIds(clock: Clock): NewId {
  const next = monotonicFactory()
  return (prefix) => `${prefix}${next(clock.now()).toLowerCase()}`
}
