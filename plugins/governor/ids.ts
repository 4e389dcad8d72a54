// Record ids: a kind prefix and a ulid (sortable by time), lowercase like the
// registry's. The time part comes from the gateway's clock, so tests can control it.
import { encodeTime } from 'ulid'
import type { Clock } from '../../proxy/kit/clock.ts'
import { createUlids } from '../../proxy/kit/ids.ts'

export const ID_PREFIXES = { audit: 'aud_', violation: 'vio_', alert: 'alt_', case: 'case_', model: 'mdl_', rule: 'rule_' } as const
export type RecordKind = keyof typeof ID_PREFIXES

export type NewId = (kind: RecordKind) => string

export function createIds(clock: Clock): NewId {
  const next = createUlids(clock)
  return (kind) => `${ID_PREFIXES[kind]}${next().toLowerCase()}`
}

/** The smallest id string of a kind at a time; every id made at that time or later sorts after it. */
export function idAtTime(kind: RecordKind, ms: number): string {
  return `${ID_PREFIXES[kind]}${encodeTime(ms, 10).toLowerCase()}`
}
