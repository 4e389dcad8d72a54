// The Governor's record store, on LMDB and on PostgreSQL alike: appends chain one project's
// records whichever handle (gateway) writes them, at once too, and the chain verifies; a record's
// violations, alert, counts and events commit with it or not at all; transitions emit their
// events with the change.
import t, { type Test } from 'tap'
import pino from 'pino'
import { ConflictError, NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { GatewayEvent } from '../../../proxy/stores/events/index.ts'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { openDatabase } from '../../../proxy/stores/database.ts'
import { openSharedEvents } from '../../../proxy/stores/events/postgres.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { verifyAuditChain } from '../../../plugins/governor/store/verify-chain.ts'
import type { AuditEntry, GovernorRecords } from '../../../plugins/governor/store/records.ts'
import { createIds, type NewId } from '../../../plugins/governor/ids.ts'
import { lmdbGovernorRecords } from '../../../plugins/governor/store/lmdb/records.ts'
import { postgresGovernorRecords } from '../../../plugins/governor/store/postgres/records.ts'
import type { Violation } from '../../../plugins/governor/store/types.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../helpers/postgres-server.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { type ManualClock, manualClock } from '../../helpers/manual-clock.ts'

const log = pino({ level: 'silent' })
const NOW = Date.UTC(2025, 0, 15, 9)

type Kind = 'lmdb' | 'postgres'

interface Place {
  readonly clock: ManualClock
  /** A handle on the shared records, as one more gateway would open it. */
  open(): Promise<GovernorRecords>
  /** Every event in the outbox, oldest first. */
  events(): Promise<GatewayEvent[]>
}

async function placeOf(t: Test, kind: Kind, server: PostgresServer | undefined): Promise<Place> {
  const clock = manualClock(NOW)
  if (kind === 'lmdb') {
    const store = openStore(freshDataDir(t))
    t.teardown(() => store.close())
    const outbox = createOutbox(store.root, clock)
    return {
      clock,
      open: async () => lmdbGovernorRecords(store.forPlugin('governor'), clock, createIds(clock), outbox),
      events: async () => outbox.pending(10_000),
    }
  }
  const url = await server!.freshDatabase(t)
  const reader = openDatabase(url, log, { maxConnections: 2 })
  t.teardown(() => reader.close())
  return {
    clock,
    async open() {
      const database = openDatabase(url, log, { maxConnections: 5 })
      const events = await openSharedEvents(database.forPlugin('core'), clock, log)
      t.teardown(async () => {
        await events.close()
        await database.close()
      })
      return postgresGovernorRecords(database.forPlugin('governor'), events, clock, createIds(clock))
    },
    async events() {
      const found = await reader.forPlugin('core').query<{ event: GatewayEvent }>('SELECT event FROM core_events ORDER BY id')
      return found.rows.map((row) => row.event)
    },
  }
}

function violationOf(newId: NewId, projectId: string, auditId: string, severity: Violation['severity']): Violation {
  return {
    id: newId('violation'),
    projectId,
    auditId,
    source: 'request',
    category: 'EMAIL_ADDRESS',
    type: 'PRIVACY',
    severity,
    count: 1,
    description: '1 × EMAIL_ADDRESS in the request',
    status: 'open',
    createdAt: new Date(NOW).toISOString(),
    resolvedAt: null,
    caseId: null,
  }
}

/** An audit entry of a request, with `violations` open violations of MEDIUM severity and an alert when asked. */
function entryOf(newId: NewId, projectId: string, options: { violations?: number; alert?: boolean; auditId?: string } = {}): AuditEntry {
  const auditId = options.auditId ?? newId('audit')
  const violations = Array.from({ length: options.violations ?? 0 }, () => violationOf(newId, projectId, auditId, 'MEDIUM'))
  const at = new Date(NOW).toISOString()
  const alert =
    options.alert === true
      ? {
          id: newId('alert'),
          projectId,
          auditId,
          type: 'high_risk_request' as const,
          severity: 'HIGH' as const,
          title: 'High-risk request',
          message: 'A customer_support request scored 70 (high).',
          violationIds: violations.map((v) => v.id),
          status: 'open' as const,
          createdAt: at,
          acknowledgedAt: null,
          resolvedAt: null,
        }
      : undefined
  return {
    draft: {
      id: auditId,
      kind: 'request',
      at,
      projectId,
      keyId: 'key_1',
      requestId: `req_${auditId}`,
      sender: { id: 'agent-7', role: null, department: null },
      recipientCountry: null,
      actionType: 'customer_support',
      model: { provider: 'local', model: 'gpt-4o-mini' },
      decision: 'review',
      score: 30,
      level: 'medium',
      reasons: [],
      findings: [],
      findingsTruncated: false,
      findingCounts: {},
      ruleMatches: [],
      violationIds: violations.map((v) => v.id),
      alertId: alert?.id ?? null,
      settingsVersion: 1,
      requestAuditId: null,
    },
    violations,
    alert,
    model: {
      id: newId('model'),
      projectId,
      provider: 'local',
      model: 'gpt-4o-mini',
      riskClassification: 'unclassified',
      approvalStatus: 'pending',
      source: 'auto',
      notes: null,
      createdAt: at,
      updatedAt: at,
    },
  }
}

async function suite(t: Test, kind: Kind, server?: PostgresServer) {
  t.test("appends chain each project's records in order; a record is read back as written, by its own project only", async (t) => {
    const place = await placeOf(t, kind, server)
    const records = await place.open()
    const newId = createIds(place.clock)
    const first = await records.trail.append(entryOf(newId, 'proj_a'))
    const second = await records.trail.append(entryOf(newId, 'proj_a', { violations: 1 }))
    const other = await records.trail.append(entryOf(newId, 'proj_b'))
    t.match([first, second, other], [{ seq: 1 }, { seq: 2, prevHash: first.hash }, { seq: 1, prevHash: '0'.repeat(64) }])
    t.same(await records.trail.get('proj_a', second.id), second)
    t.equal(await records.trail.get('proj_b', second.id), undefined)
    t.same(await verifyAuditChain(records.chain, 'proj_a'), { intact: true, records: 2 })
    t.same(await verifyAuditChain(records.chain, 'proj_a', 1), { intact: true, records: 1 })
    t.same(await verifyAuditChain(records.chain, 'proj_unknown'), { intact: true, records: 0 })
    const models = await records.models.list('proj_a', { limit: 10 }, {})
    t.equal(models.data.length, 1, 'a model is registered once, on its first use')
    t.same(await records.models.registered('proj_a', 'local', 'gpt-4o-mini'), models.data[0])
  })

  t.test('three gateways appending to one project at once keep one unbroken chain', async (t) => {
    const place = await placeOf(t, kind, server)
    const gateways = await Promise.all([place.open(), place.open(), place.open()])
    const appended = await Promise.all(
      gateways.map(async (records) => {
        const newId = createIds(place.clock)
        const made = []
        for (let i = 0; i < 30; i++) made.push(records.trail.append(entryOf(newId, 'proj_a', { violations: i % 3 === 0 ? 1 : 0 })))
        return Promise.all(made)
      }),
    )
    const seqs = appended
      .flat()
      .map((record) => record.seq)
      .sort((a, b) => a - b)
    t.same(
      seqs,
      Array.from({ length: 90 }, (_, i) => i + 1),
      'seq 1 to 90, none twice, no gap',
    )
    t.same(await verifyAuditChain(gateways[1]!.chain, 'proj_a'), { intact: true, records: 90 })
    t.match(await gateways[2]!.violations.list('proj_a', { limit: 200 }, { status: 'open' }), { data: { length: 30 } })
    const scores = (await place.events()).filter((e) => e.type === 'compliance.score_changed').map((e) => e.data.score)
    t.same(
      scores,
      Array.from({ length: 30 }, (_, i) => 100 - 3 * (i + 1)),
      'the counts moved one violation at a time',
    )
    t.equal((await gateways[0]!.models.list('proj_a', { limit: 10 }, {})).data.length, 1, 'one registry entry for the model')
  })

  t.test("a record's violations, alert and events are in the outbox exactly when the record is", async (t) => {
    const place = await placeOf(t, kind, server)
    const records = await place.open()
    const newId = createIds(place.clock)
    const kept = await records.trail.append(entryOf(newId, 'proj_a', { violations: 2, alert: true }))
    t.same(
      (await place.events()).map((e) => e.type),
      ['violation.detected', 'violation.detected', 'compliance.score_changed', 'alert.created'],
    )
    if (kind === 'postgres') {
      // Another record under a taken audit id cannot be stored: nothing of it may remain.
      await t.rejects(records.trail.append(entryOf(newId, 'proj_a', { violations: 1, alert: true, auditId: kept.id })))
      t.equal((await place.events()).length, 4, 'no event of the record that failed')
      t.equal((await records.violations.list('proj_a', { limit: 10 }, {})).data.length, 2)
      t.equal((await records.alerts.list('proj_a', { limit: 10 }, {})).data.length, 1)
      t.same(await verifyAuditChain(records.chain, 'proj_a'), { intact: true, records: 1 })
    }
    const [violation] = kept.violationIds
    const resolved = await records.violations.resolve('proj_a', violation!)
    t.match(resolved, { status: 'resolved' })
    await t.rejects(records.violations.resolve('proj_a', violation!), ConflictError)
    await t.rejects(records.violations.resolve('proj_b', violation!), NotFoundError)
    t.same(
      (await place.events()).slice(4).map((e) => [e.type, e.data.score ?? e.data.violation_id]),
      [
        ['violation.resolved', violation],
        ['compliance.score_changed', 97],
      ],
    )
    const alert = (await records.alerts.list('proj_a', { limit: 10 }, {})).data[0]!
    await records.alerts.acknowledge('proj_a', alert.id)
    await t.rejects(records.alerts.acknowledge('proj_a', alert.id), ConflictError)
    const opened = await records.cases.create('proj_a', { title: 'Mail', violationIds: kept.violationIds })
    await records.cases.resolve('proj_a', opened.id)
    t.same(
      (await place.events()).slice(6).map((e) => e.type),
      ['alert.acknowledged', 'case.created', 'violation.resolved', 'compliance.score_changed', 'case.resolved'],
    )
    t.same((await records.violations.list('proj_a', { limit: 10 }, { status: 'open' })).data, [])
  })
}

t.test('lmdb', (t) => suite(t, 'lmdb'))

t.test('postgres', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await suite(t, 'postgres', server)
})
