// The outboxes a gateway opens: LMDB always, PostgreSQL only with a database.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { openOutboxes } from '../../../../proxy/stores/events/index.ts'
import { openStore } from '../../../../proxy/stores/store.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres } from '../../../helpers/postgres-server.ts'

const log = pino({ level: 'silent' })
const clock = { now: () => 1_700_000_000_000 }

t.test('without a database: the LMDB outbox alone', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const outboxes = await openOutboxes(store.root, undefined, clock, log)
  t.equal(outboxes.shared, undefined)
  const event = outboxes.local.emit('case.created', 'proj_1', { case_id: 'case_1' })
  await store.root.committed
  t.same(outboxes.local.pending(10), [event])
})

t.test('with a database: the shared outbox beside the LMDB one', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  const database = openDatabase(await server.freshDatabase(t), log)
  const store = openStore(freshDataDir(t))
  const outboxes = await openOutboxes(store.root, database.forPlugin('core'), clock, log)
  t.teardown(async () => {
    await outboxes.shared?.close()
    await database.close()
    await store.close()
  })
  const shared = outboxes.shared
  if (shared === undefined) throw new Error('no shared outbox with a database')
  const core = database.forPlugin('core')
  const event = await core.transaction((sql) => shared.emit(sql, 'alert.created', 'proj_1', { alert_id: 'alert_1' }))
  t.same(await core.transaction((sql) => shared.take(sql, 10)), [event])
  t.same(outboxes.local.pending(10), [], 'the LMDB outbox is apart')
})
