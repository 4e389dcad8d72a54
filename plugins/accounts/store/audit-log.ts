// The organization's admin audit log: who changed what, and when, in either store
// (lmdb/audit-log.ts, postgres/audit-log.ts).

export interface AuditEntry {
  readonly id: string
  readonly at: string
  readonly actor: { readonly userId: string; readonly email: string }
  /** e.g. 'project.update', 'key.deactivate', 'member.role_change'. */
  readonly action: string
  readonly target: { readonly type: 'organization' | 'member' | 'invitation' | 'project' | 'key'; readonly id: string }
  /** What changed, never a secret. */
  readonly details?: Readonly<Record<string, unknown>>
}

export interface AuditLog {
  /** Resolves once the entry is committed, so the change's answer follows its record. */
  record(organizationId: string, entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void>
  /** Newest first. */
  list(organizationId: string, limit: number): Promise<AuditEntry[]>
}
