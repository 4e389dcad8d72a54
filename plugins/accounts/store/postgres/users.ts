// Users, organizations and memberships in PostgreSQL: the reads the routes make, and the one
// single-record change (a rename). Changes across these records are in membership-changes.ts.
import type { Sql } from '../../../../proxy/stores/database.ts'
import type { Membership, Organization, Organizations } from '../organizations.ts'
import { normalizeEmail, type User, type Users } from '../users.ts'

type Row<T> = { record: T }

export function postgresUsers(sql: Sql): Users {
  return {
    async byId(id) {
      return (await sql.query<Row<User>>('SELECT record FROM accounts_users WHERE id = $1', [id])).rows[0]?.record
    },
    async byEmail(email) {
      return (await sql.query<Row<User>>('SELECT record FROM accounts_users WHERE email = $1', [normalizeEmail(email)])).rows[0]?.record
    },
  }
}

export function postgresOrganizations(sql: Sql): Organizations {
  return {
    async get(id) {
      return (await sql.query<Row<Organization>>('SELECT record FROM accounts_organizations WHERE id = $1', [id])).rows[0]?.record
    },
    async list() {
      const { rows } = await sql.query<Row<Organization>>(`SELECT record FROM accounts_organizations ORDER BY record->>'createdAt', id`)
      return rows.map((row) => row.record)
    },
    async rename(id, name) {
      const { rows } = await sql.query<Row<Organization>>(
        `UPDATE accounts_organizations SET record = record || jsonb_build_object('name', $2::text) WHERE id = $1 RETURNING record`,
        [id, name],
      )
      if (rows[0] === undefined) throw new Error(`no organization ${id}`)
      return rows[0].record
    },
    async membership(organizationId, userId) {
      const { rows } = await sql.query<Row<Membership>>('SELECT record FROM accounts_memberships WHERE organization_id = $1 AND user_id = $2', [
        organizationId,
        userId,
      ])
      return rows[0]?.record
    },
    async members(organizationId) {
      const { rows } = await sql.query<Row<Membership>>('SELECT record FROM accounts_memberships WHERE organization_id = $1 ORDER BY user_id COLLATE "C"', [
        organizationId,
      ])
      return rows.map((row) => row.record)
    },
  }
}
