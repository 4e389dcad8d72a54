// A settlement committed twice (its commit landed but the gateway saw it fail, or a dead process's
// journal replayed after its commit) is counted once: its ledger entry is keyed by request id, and
// the budget lease its hold came from shrinks once, not at each commit. A lease shrunk twice would
// give back budget still held by other requests, and the month could go over by a hold. One never
// shrunk would hold budget nobody uses: an entry recorded first by a settlement with no lease
// (another gateway's) still shrinks its own gateway's lease when that one's settlement comes.
import t, { type Test } from 'tap'
import { pino } from 'pino'
import { openDatabase } from '../../../../../proxy/stores/database.ts'
import { meteringMigrations } from '../../../../../plugins/metering/store/postgres/schema.ts'
import { settleBatch, type Settlement } from '../../../../../plugins/metering/store/postgres/settlement.ts'
import { POSTGRES_MISSING, startPostgres } from '../../../../helpers/postgres-server.ts'
import { entry } from '../fixtures.ts'

/** A fresh metering database with this gateway's lease on the month: 10,000 µ$ reserved, of which the request held 1,000. */
async function leasedMonth(t: Test) {
  const server = await startPostgres(t)
  const database = openDatabase(await server.freshDatabase(t), pino({ level: 'silent' }), { maxConnections: 2 })
  t.teardown(() => database.close())
  const sql = database.forPlugin('metering')
  await sql.migrate(meteringMigrations)
  const charged = entry('r1', 400)
  await sql.query(`INSERT INTO metering_holds (request_id, project_id, month, micros, owner) VALUES ('lease-a', $1, $2, 10000, 'a')`, [
    charged.projectId,
    charged.month,
  ])
  await sql.query(`INSERT INTO metering_budgets (project_id, month, used_micros, reserved_micros) VALUES ($1, $2, 0, 10000)`, [
    charged.projectId,
    charged.month,
  ])
  const settlement: Settlement = { entry: charged, limitMicros: 1_000_000, lease: { id: 'lease-a', month: charged.month, micros: 1_000 } }
  const unleased: Settlement = { entry: charged, limitMicros: 1_000_000 }
  const figures = async () => {
    const lease = await sql.query<{ micros: string }>(`SELECT micros FROM metering_holds WHERE request_id = 'lease-a'`)
    const month = await sql.query<{ used: string; reserved: string }>(
      'SELECT used_micros AS used, reserved_micros AS reserved FROM metering_budgets WHERE project_id = $1 AND month = $2',
      [charged.projectId, charged.month],
    )
    const ledger = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM metering_ledger')
    return { lease: lease.rows[0]!.micros, ...month.rows[0]!, entries: ledger.rows[0]!.n }
  }
  return { sql, settlement, unleased, figures }
}

t.test('a settlement committed twice charges once and shrinks its lease once', { skip: POSTGRES_MISSING }, async (t) => {
  const { sql, settlement, figures } = await leasedMonth(t)
  await settleBatch(sql, [settlement], undefined)
  await settleBatch(sql, [settlement], undefined)
  t.same(await figures(), { lease: '9000', used: '400', reserved: '9000', entries: 1 }, 'charged once, the lease gave back the hold once')
})

t.test("an entry recorded first without its lease still shrinks the lease when its own gateway's settlement comes", { skip: POSTGRES_MISSING }, async (t) => {
  const { sql, settlement, unleased, figures } = await leasedMonth(t)
  await settleBatch(sql, [unleased], undefined)
  t.same(await figures(), { lease: '10000', used: '400', reserved: '10000', entries: 1 }, 'charged by the first')
  await settleBatch(sql, [settlement], undefined)
  await settleBatch(sql, [settlement], undefined)
  t.same(await figures(), { lease: '9000', used: '400', reserved: '9000', entries: 1 }, 'not charged again; the lease shrank once')
})

t.test('of one request settled twice in a batch, the settlement that carries the lease is the one kept', { skip: POSTGRES_MISSING }, async (t) => {
  const { sql, settlement, unleased, figures } = await leasedMonth(t)
  await settleBatch(sql, [settlement, unleased], undefined)
  t.same(await figures(), { lease: '9000', used: '400', reserved: '9000', entries: 1 })
})
