// The audit log in PostgreSQL. Ids are ulids from each gateway's clock, so one organization's
// entries from several gateways read back in time order, as far as their clocks agree.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { Sql } from '../../../../proxy/stores/database.ts'
import { createUlids } from '../../../../proxy/kit/ids.ts'
import type { AuditEntry, AuditLog } from '../audit-log.ts'

export function postgresAuditLog(sql: Sql, clock: Clock): AuditLog {
  const nextId = createUlids(clock)
  return {
    async record(organizationId, entry) {
      const id = nextId()
      const stored: AuditEntry = { id, at: new Date(clock.now()).toISOString(), ...entry }
      await sql.query('INSERT INTO accounts_audit_log (organization_id, id, entry) VALUES ($1, $2, $3)', [organizationId, id, stored])
    },
    async list(organizationId, limit) {
      const { rows } = await sql.query<{ entry: AuditEntry }>(
        'SELECT entry FROM accounts_audit_log WHERE organization_id = $1 ORDER BY id COLLATE "C" DESC LIMIT $2',
        [organizationId, limit],
      )
      return rows.map((row) => row.entry)
    },
  }
}
