// The compliance records endpoints with the records in PostgreSQL (DATABASE_URL), every gateway
// of a test on one fresh database (the suite: records-routes.ts).
import t from 'tap'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { recordsRoutesSuite } from './records-routes.ts'

// A dozen gateways, each on a fresh database it migrates at start: a loaded 2-core machine can
// need more than the usual two minutes.
t.setTimeout(300_000)

t.test('on PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  recordsRoutesSuite(t, async (t) => ({ databaseUrl: await server.freshDatabase(t) }))
})
