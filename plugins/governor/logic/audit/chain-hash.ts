// How audit records are chained: each holds the previous record's hash (the first holds
// GENESIS_HASH) and its own hash, SHA-256 over the canonical encoding of all its other fields.
import type { AuditRecord } from '../../store/types.ts'
import { createHash } from 'node:crypto'
import { canonicalJson } from '../../../../proxy/kit/canonical-json.ts'

export const GENESIS_HASH = '0'.repeat(64)

export function hashOfRecord(record: Omit<AuditRecord, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(record)).digest('hex')
}
