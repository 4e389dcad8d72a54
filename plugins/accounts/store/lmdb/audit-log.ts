// The audit log in LMDB: entries are keyed `orgId:ulid`, so one organization's log is one range,
// in time order.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { createUlids } from '../../../../proxy/kit/ids.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { AuditEntry, AuditLog } from '../audit-log.ts'

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
