// The audit chain in PostgreSQL (DATABASE_URL): gateways on one database append to one chain per
// project, which `tollgate audit verify` and the verify route check there, a page at a time; a
// changed or removed record is reported as in LMDB; with the database away nothing is answered
// unrecorded.
import t from 'tap'
import pg from 'pg'
import pino from 'pino'
import { openDatabase } from '../../../proxy/stores/database.ts'
import { openSharedEvents } from '../../../proxy/stores/events/postgres.ts'
import { postgresGovernorRecords } from '../../../plugins/governor/store/postgres/records.ts'
import { createIds } from '../../../plugins/governor/ids.ts'
import type { AuditRecord } from '../../../plugins/governor/store/types.ts'
import { call } from '../../helpers/http.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE, tollgateOn } from './fixtures.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

// Gateways and command-line processes, each started on a fresh database: a loaded 2-core machine
// can need more than the usual two minutes.
t.setTimeout(300_000)

t.test('the audit chain in PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)

  async function chainOf(url: string, projectId: string): Promise<AuditRecord[]> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const found = await client.query<{ record: AuditRecord }>('SELECT record FROM governor_audit WHERE project_id = $1 ORDER BY seq', [projectId])
      return found.rows.map((row) => row.record)
    } finally {
      await client.end()
    }
  }

  async function sql(url: string, text: string, values: unknown[]): Promise<void> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(text, values)
    } finally {
      await client.end()
    }
  }

  t.test('two gateways extend one chain; the CLI and the route verify it, and report a changed or removed record', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const upstream = await startAnswerUpstream(`Noted. I will mail ${SENSITIVE.email}.`)
    t.teardown(() => upstream.close())
    const env = { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url }
    const a = await governedGateway(t, { databaseUrl, env })
    const b = await governedGateway(t, { databaseUrl, env, dataDir: freshDataDir(t) })
    const other = await call(`${b.url}/api/governor/validate`, {
      key: a.sk,
      body: { messages: [{ role: 'user', content: `Mail ${SENSITIVE.email}` }], governorMetadata: metadata },
    })
    t.equal(other.status, 200, 'a key of the project seeded for A works on B')
    t.equal((await a.ask('complete', 'First question')).status, 200)
    t.equal(
      (
        await call(`${b.url}/api/ai/complete`, {
          key: a.sk,
          body: { messages: [{ role: 'user', content: `Refund the card ${SENSITIVE.card}` }], governorMetadata: metadata },
        })
      ).status,
      200,
    )

    const records = await chainOf(databaseUrl, a.projectId)
    t.same(
      records.map((r) => [r.seq, r.kind]),
      [
        [1, 'validate'],
        [2, 'request'],
        [3, 'output'],
        [4, 'request'],
        [5, 'output'],
      ],
    )
    const where = { dataDir: a.dataDir, databaseUrl }
    const intact = await tollgateOn(where, 'audit', 'verify', '--project', a.projectId)
    t.equal(intact.code, 0, intact.stderr)
    t.match(intact.stdout, `audit chain of ${a.projectId} is intact (5 records)`)
    t.same((await call(`${b.url}/api/compliance/audit/${records[4]!.id}/verify`, { key: a.pk })).body, {
      auditId: records[4]!.id,
      seq: 5,
      hash: records[4]!.hash,
      intact: true,
      records: 5,
    })
    t.match((await call(`${b.url}/api/compliance/audit/${records[1]!.id}`, { key: a.pk })).body, { id: records[1]!.id, seq: 2, kind: 'request' })

    const changed = records[2]!
    await sql(databaseUrl, 'UPDATE governor_audit SET record = $2 WHERE id = $1', [changed.id, JSON.stringify({ ...changed, score: changed.score + 1 })])
    const broken = await tollgateOn(where, 'audit', 'verify', '--project', a.projectId, '--json')
    t.equal(broken.code, 1)
    t.match(JSON.parse(broken.stdout), { project: a.projectId, intact: false, records: 2, brokenAt: changed.id, reason: /contents do not match its hash/ })
    t.match(
      (await call(`${a.url}/api/compliance/audit/${records[1]!.id}/verify`, { key: a.pk })).body,
      { intact: true, records: 2 },
      'the records before the change hold',
    )
    t.match((await call(`${a.url}/api/compliance/audit/${records[4]!.id}/verify`, { key: a.pk })).body, { intact: false, brokenAt: changed.id })

    await sql(databaseUrl, 'UPDATE governor_audit SET record = $2 WHERE id = $1', [changed.id, JSON.stringify(changed)])
    await sql(databaseUrl, 'DELETE FROM governor_audit WHERE id = $1', [records[4]!.id])
    t.match(await tollgateOn(where, 'audit', 'verify', '--project', a.projectId), { code: 1, stdout: /records were removed from its end/ })
    t.match(await tollgateOn(where, 'audit', 'verify', '--project', 'proj_unknown'), { code: 0, stdout: /intact \(0 records\)/ })
  })

  t.test('the CLI verifies a chain longer than a page', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const log = pino({ level: 'silent' })
    const database = openDatabase(databaseUrl, log, { maxConnections: 2 })
    const clock = manualClock(Date.UTC(2025, 0, 15))
    const events = await openSharedEvents(database.forPlugin('core'), clock, log)
    t.teardown(async () => {
      await events.close()
      await database.close()
    })
    const records = await postgresGovernorRecords(database.forPlugin('governor'), events, clock, createIds(clock))
    const newId = createIds(clock)
    const at = new Date(clock.now()).toISOString()
    for (let i = 0; i < 1_200; i++) {
      await records.trail.append({
        draft: {
          id: newId('audit'),
          kind: 'validate',
          at,
          projectId: 'proj_long',
          keyId: 'key_1',
          requestId: `req_${i}`,
          sender: { id: 'agent-7', role: null, department: null },
          recipientCountry: null,
          actionType: 'customer_support',
          model: null,
          decision: 'approved',
          score: 0,
          level: 'low',
          reasons: [],
          findings: [],
          findingsTruncated: false,
          findingCounts: {},
          ruleMatches: [],
          violationIds: [],
          alertId: null,
          settingsVersion: 1,
          requestAuditId: null,
        },
        violations: [],
        alert: undefined,
        model: undefined,
      })
    }
    const verified = await tollgateOn({ dataDir: freshDataDir(t), databaseUrl }, 'audit', 'verify', '--project', 'proj_long')
    t.equal(verified.code, 0, verified.stderr)
    t.match(verified.stdout, 'intact (1200 records)')
  })

  t.test('with the database away a governed request is refused with 503 rather than answered unrecorded, and served once it is back', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const gw = await governedGateway(t, { databaseUrl })
    const validate = () =>
      call(`${gw.url}/api/governor/validate`, { key: gw.sk, body: { messages: [{ role: 'user', content: 'Hello' }], governorMetadata: metadata } })
    t.equal((await validate()).status, 200)
    await server.stop()
    let away = true
    t.teardown(async () => {
      if (away) await server.start()
    })
    const refused = await validate()
    t.equal(refused.status, 503)
    t.match(refused.body, { code: 'dependency_unavailable' })
    await server.start()
    away = false
    const back = await validate()
    t.equal(back.status, 200)
    t.same(
      (await chainOf(databaseUrl, gw.projectId)).map((r) => r.seq),
      [1, 2],
      'the refused request left no record and no gap',
    )
  })
})
