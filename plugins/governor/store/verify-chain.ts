// Walks a project's audit chain from the first record and reports the first one that does not
// hold: a changed record (its hash no longer matches), a removed one (a gap in the sequence or a
// previous-hash mismatch), or records removed from the end (the head points past the last one).
// Given a record's seq, it walks up to that record only: the proof that it and every record
// before it are as written. The chain is read a page at a time, so a long one is checked in
// bounded memory.
import type { AuditChain } from './records.ts'
import type { AuditRecord } from './types.ts'
import { GENESIS_HASH, hashOfRecord } from '../logic/audit/chain-hash.ts'

export type ChainCheck =
  | { readonly intact: true; readonly records: number }
  | { readonly intact: false; readonly records: number; readonly brokenAt: string; readonly reason: string }

const PAGE_SIZE = 500

export async function verifyAuditChain(chain: AuditChain, projectId: string, throughSeq?: number): Promise<ChainCheck> {
  let previousHash = GENESIS_HASH
  let verified = 0
  const broken = (brokenAt: string, reason: string): ChainCheck => ({ intact: false, records: verified, brokenAt, reason })
  const last = throughSeq ?? Number.MAX_SAFE_INTEGER
  let afterSeq = 0
  for (;;) {
    const links = await chain.links(projectId, afterSeq, last, PAGE_SIZE)
    for (const { seq, value } of links) {
      const expectedSeq = verified + 1
      const record = value as AuditRecord | null | undefined
      if (typeof record !== 'object' || record === null) return broken(`record ${seq}`, 'the stored value is not an audit record')
      if (seq !== expectedSeq || record.seq !== expectedSeq) {
        return broken(record.id, `expected record ${expectedSeq} of the chain here, found record ${record.seq}: records were removed or moved`)
      }
      if (record.projectId !== projectId) return broken(record.id, 'the record names another project')
      if (record.prevHash !== previousHash) return broken(record.id, 'its previous-record hash does not match the record before it')
      const { hash, ...rest } = record
      if (hashOfRecord(rest) !== hash) return broken(record.id, 'its contents do not match its hash: the record was changed')
      previousHash = hash
      verified++
    }
    if (links.length < PAGE_SIZE) break
    afterSeq = links.at(-1)!.seq
  }
  if (throughSeq !== undefined) {
    return verified === throughSeq
      ? { intact: true, records: verified }
      : broken(`record ${verified + 1}`, `the chain ends at record ${verified}, before record ${throughSeq}`)
  }
  const head = await chain.head(projectId)
  if ((head?.seq ?? 0) !== verified || (head !== undefined && head.hash !== previousHash)) {
    return broken(head?.id ?? projectId, `the chain ends at record ${verified}, but record ${head?.seq ?? 0} was written: records were removed from its end`)
  }
  return { intact: true, records: verified }
}
