// The organization's admin audit log: who changed what, and when. In LMDB entries are keyed
// `orgId:ulid`, so one organization's log is one range, in time order.
import type { Clock } from '../../proxy/kit/clock.ts'
import type { PluginStore } from '../../proxy/stores/store.ts'
import { createUlids } from '../../proxy/kit/ids.ts'

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

export function openAuditLog(store: PluginStore, clock: Clock): AuditLog {
  const entries = store.open<AuditEntry>('audit-log')
  const nextId = createUlids(clock)
  return {
    async record(organizationId, entry) {
      const now = clock.now()
      const id = nextId()
      await entries.put(`${organizationId}:${id}`, { id, at: new Date(now).toISOString(), ...entry })
    },
    async list(organizationId, limit) {
      // ';' follows ':', so this range is exactly the organization's entries, read backwards.
      return [...entries.getRange({ start: `${organizationId};`, end: `${organizationId}:`, reverse: true, limit }).map(({ value }) => value)]
    },
  }
}
