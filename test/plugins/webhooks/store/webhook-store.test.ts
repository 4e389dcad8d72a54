// The webhook store's promises, on LMDB and on PostgreSQL alike: webhooks kept per project with
// their secrets sealed, each event fanned out once, a delivery claimed by one worker until its
// lease runs out, retries scheduled and a failing webhook disabled by the same rules. Then what
// only a shared store must keep: gateways claiming at once never take one delivery twice, a claim
// whose gateway died is taken again after its lease, and a database that is away fails fast.
import t, { type Test } from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import type { EventKind, GatewayEvent } from '../../../../proxy/stores/events/index.ts'
import { createOutbox } from '../../../../proxy/stores/events/lmdb.ts'
import { openSharedEvents } from '../../../../proxy/stores/events/postgres.ts'
import { openStore } from '../../../../proxy/stores/store.ts'
import { storedOnce } from '../../../../proxy/stores/stored-once.ts'
import type { ClaimLimits } from '../../../../plugins/webhooks/logic/claim-plan.ts'
import type { AttemptResult } from '../../../../plugins/webhooks/logic/delivery-states.ts'
import { createIds } from '../../../../plugins/webhooks/ids.ts'
import { lmdbWebhookStore } from '../../../../plugins/webhooks/store/lmdb/webhook-store.ts'
import { webhookMigrations } from '../../../../plugins/webhooks/store/postgres/schema.ts'
import { keepOnceIn, postgresWebhookStore } from '../../../../plugins/webhooks/store/postgres/webhook-store.ts'
import { RETRY_OFFSETS_MS } from '../../../../plugins/webhooks/logic/retry-schedule.ts'
import { createSecretBox, type SecretBox } from '../../../../plugins/webhooks/logic/secret-box.ts'
import type { WebhookStore } from '../../../../plugins/webhooks/store/webhook-store.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../../helpers/postgres-server.ts'
import { type ManualClock, manualClock } from '../../../helpers/manual-clock.ts'
import { CLOCK_START } from '../fixtures/gateway.ts'

const log = pino({ level: 'silent' })
const TIMEOUT_MS = 10_000
const LEASE_MS = TIMEOUT_MS + 60_000
const SECRET = 'whsec-store-secret-0123456789'
const ok: AttemptResult = { ok: true, responseCode: 200, error: null, durationMs: 5 }
const failed: AttemptResult = { ok: false, responseCode: 500, error: 'HTTP 500', durationMs: 5 }
const limits = (slots = 16, inFlight: ReadonlyMap<string, string> = new Map()): ClaimLimits => ({ slots, perWebhookConcurrency: 16, inFlight })

type Kind = 'lmdb' | 'postgres'

/** One gateway's view: its store, its box, and the outbox it emits to as the other plugins do. */
interface Gateway {
  readonly store: WebhookStore
  readonly box: SecretBox
  emit(type: EventKind, projectId: string, data?: Record<string, unknown>): Promise<GatewayEvent>
  /** Events emitted and not fanned out, alerts of disabled webhooks among them. */
  takeEvents(): Promise<GatewayEvent[]>
}

interface Place {
  readonly clock: ManualClock
  /** A gateway on the shared place: on PostgreSQL each has its own pool, LMDB directory and listener. */
  open(): Promise<Gateway>
}

async function placeOf(t: Test, kind: Kind, server: PostgresServer | undefined): Promise<Place> {
  const clock = manualClock(CLOCK_START)
  const newId = createIds(clock)
  if (kind === 'lmdb') {
    const lmdb = openStore(freshDataDir(t))
    t.teardown(() => lmdb.close())
    const pluginStore = lmdb.forPlugin('webhooks')
    const outbox = createOutbox(lmdb.root, clock)
    const box = await createSecretBox((entry, make) => storedOnce(pluginStore, entry, make), undefined)
    // Two handles on one LMDB directory in one process can deadlock: every gateway here is the same one.
    const gateway: Gateway = {
      store: lmdbWebhookStore(pluginStore, outbox, box, clock, newId),
      box,
      emit: (type, projectId, data = {}) => lmdb.root.transaction(() => outbox.emit(type, projectId, data)),
      takeEvents: () =>
        lmdb.root.transaction(() => {
          const events = outbox.pending(1000)
          outbox.remove(events.map((event) => event.id))
          return events
        }),
    }
    return { clock, open: async () => gateway }
  }
  const url = await server!.freshDatabase(t)
  return {
    clock,
    async open() {
      const database = openDatabase(url, log, { maxConnections: 5 })
      const core = database.forPlugin('core')
      const sharedEvents = await openSharedEvents(core, clock, log)
      const own = database.forPlugin('webhooks')
      await own.migrate(webhookMigrations)
      const box = await createSecretBox(keepOnceIn(own), undefined)
      const store = postgresWebhookStore(own, { sharedEvents, box, clock, newId, log })
      t.teardown(async () => {
        await store.close()
        await sharedEvents.close()
        await database.close()
      })
      return {
        store,
        box,
        emit: (type, projectId, data = {}) => core.transaction((sql) => sharedEvents.emit(sql, type, projectId, data)),
        takeEvents: () => core.transaction((sql) => sharedEvents.take(sql, 1000)),
      }
    },
  }
}

async function suite(t: Test, kind: Kind, server?: PostgresServer) {
  async function setup(t: Test) {
    const place = await placeOf(t, kind, server)
    const gateway = await place.open()
    return { ...gateway, clock: place.clock }
  }

  t.test('webhooks are kept per project, oldest first, with their secrets sealed to their id', async (t) => {
    const { store, box } = await setup(t)
    const first = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/1', events: ['*'], secret: SECRET })
    const second = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/2', events: ['case.created'], secret: SECRET })
    await store.createWebhook({ projectId: 'proj_b', url: 'https://b.example/', events: ['*'], secret: SECRET })
    t.same(
      (await store.webhooks('proj_a')).map((hook) => hook.id),
      [first.id, second.id],
    )
    t.same(await store.webhook('proj_a', first.id), first)
    t.equal(await store.webhook('proj_b', first.id), undefined, "another project's webhook is not found")
    t.notOk(JSON.stringify(first).includes(SECRET), 'the secret is not kept in clear')
    t.equal(box.open(first.sealedSecret, first.id), SECRET)
    t.throws(() => box.open(first.sealedSecret, second.id), 'a sealed secret opens for its own webhook only')

    t.equal(await store.updateWebhook('proj_b', first.id, { active: false }), undefined)
    const changed = await store.updateWebhook('proj_a', first.id, { url: 'https://a.example/3', secret: 'another-secret-0123456789' })
    t.match(changed, { id: first.id, url: 'https://a.example/3', events: ['*'], active: true })
    t.equal(box.open(changed!.sealedSecret, first.id), 'another-secret-0123456789')
    t.equal(await store.removeWebhook('proj_b', first.id), false)
    t.equal(await store.removeWebhook('proj_a', first.id), true)
    t.same(
      (await store.webhooks('proj_a')).map((hook) => hook.id),
      [second.id],
    )
  })

  t.test('an event becomes one delivery per active webhook of its project that subscribed to its kind, once', async (t) => {
    const { store, clock, emit } = await setup(t)
    const all = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/all', events: ['*'], secret: SECRET })
    const cases = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/cases', events: ['case.created'], secret: SECRET })
    const off = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/off', events: ['*'], secret: SECRET })
    await store.updateWebhook('proj_a', off.id, { active: false })
    const other = await store.createWebhook({ projectId: 'proj_b', url: 'https://b.example/', events: ['*'], secret: SECRET })
    const created = await emit('case.created', 'proj_a', { case_id: 'case_1' })
    const alert = await emit('alert.created', 'proj_a')
    t.equal(await store.fanOut(100, clock.now()), 2)
    t.equal(await store.fanOut(100, clock.now()), 0, 'the events were taken')
    t.same(
      (await store.recentDeliveries(all.id, 10)).map((d) => d.event.id),
      [alert.id, created.id],
      'newest first',
    )
    t.same(
      (await store.recentDeliveries(cases.id, 10)).map((d) => d.event),
      [created],
    )
    t.same(await store.recentDeliveries(off.id, 10), [])
    t.same(await store.recentDeliveries(other.id, 10), [])
    t.equal(await store.pendingCount(), 3)
  })

  t.test('a claim holds a delivery until it is settled or its lease runs out; a lost claim records nothing', async (t) => {
    const { store, clock, emit } = await setup(t)
    const hook = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    await emit('case.created', 'proj_a')
    await store.fanOut(100, clock.now())
    const { claims } = await store.claimDue(clock.now(), TIMEOUT_MS, limits())
    t.equal(claims.length, 1)
    t.match(claims[0]!.claimed, { attempts: 1, status: 'pending', nextAttemptAt: null, dueAt: clock.now() + LEASE_MS, claim: String })
    t.same((await store.claimDue(clock.now() + LEASE_MS - 1, TIMEOUT_MS, limits())).claims, [], 'held until the lease runs out')

    clock.advance(LEASE_MS)
    const retaken = (await store.claimDue(clock.now(), TIMEOUT_MS, limits())).claims
    t.equal(retaken.length, 1, 'taken again once the lease ran out')
    t.match(retaken[0]!.claimed, { attempts: 2 })
    t.same(await store.settle(claims[0]!, ok, clock.now(), 20), {}, 'the first claim was lost: its outcome is not recorded')
    const settled = await store.settle(retaken[0]!, ok, clock.now(), 20)
    t.match(settled.settled, { settlement: 'succeeded', record: { status: 'succeeded', attempts: 2, responseCode: 200, claim: null, dueAt: null } })
    t.equal(await store.pendingCount(), 0)
    t.match(await store.delivery(claims[0]!.claimed.id), { status: 'succeeded', webhookId: hook.id })
  })

  t.test('a released claim is given back as it was before, uncounted', async (t) => {
    const { store, clock, emit } = await setup(t)
    await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    await emit('case.created', 'proj_a')
    await store.fanOut(100, clock.now())
    const [claim] = (await store.claimDue(clock.now(), TIMEOUT_MS, limits())).claims
    await store.release(claim!)
    t.same(await store.delivery(claim!.claimed.id), claim!.before)
    t.equal((await store.claimDue(clock.now(), TIMEOUT_MS, limits())).claims.length, 1, 'due again at once')
  })

  t.test('failed attempts are retried on the schedule, then the delivery fails; a webhook failing in a row is disabled with an alert', async (t) => {
    const { store, clock, emit, takeEvents } = await setup(t)
    const hook = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['case.created'], secret: SECRET })
    await emit('case.created', 'proj_a')
    await store.fanOut(100, clock.now())
    const first = clock.now()
    for (let attempt = 1; attempt <= RETRY_OFFSETS_MS.length + 1; attempt++) {
      const { claims } = await store.claimDue(clock.now(), TIMEOUT_MS, limits())
      t.equal(claims.length, 1, `attempt ${attempt} is due`)
      const { settled, disabled } = await store.settle(claims[0]!, failed, clock.now(), 1)
      const next = RETRY_OFFSETS_MS[attempt - 1]
      if (next !== undefined) {
        t.match(settled, { settlement: 'retrying', record: { status: 'pending', attempts: attempt, nextAttemptAt: first + next } })
        t.equal(disabled, undefined)
        clock.set(first + next - 1)
        t.same((await store.claimDue(clock.now(), TIMEOUT_MS, limits())).claims, [], 'not before its time')
        clock.set(first + next)
      } else {
        t.match(settled, { settlement: 'failed', record: { status: 'failed', attempts: 6, finishedAt: clock.now() } })
        t.match(disabled, { id: hook.id, active: false, consecutiveFailures: 1 })
      }
    }
    t.match(await store.webhook('proj_a', hook.id), { active: false })
    t.match(
      await takeEvents(),
      [{ type: 'alert.created', project_id: 'proj_a', data: { title: 'Webhook disabled', severity: 'HIGH' } }],
      'the alert is in the outbox',
    )
    t.match(await store.updateWebhook('proj_a', hook.id, { active: true }), { active: true, consecutiveFailures: 0 }, 'reactivating clears the count')
  })

  t.test('deliveries of a deleted or inactive webhook are ended unsent, and deleting a webhook removes its deliveries', async (t) => {
    const { store, clock, emit } = await setup(t)
    const off = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/off', events: ['*'], secret: SECRET })
    const gone = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/gone', events: ['*'], secret: SECRET })
    await emit('case.created', 'proj_a')
    await store.fanOut(100, clock.now())
    await store.updateWebhook('proj_a', off.id, { active: false })
    const { claims, abandoned } = await store.claimDue(clock.now(), TIMEOUT_MS, limits())
    t.equal(abandoned, 1, "the inactive webhook's delivery is ended unsent")
    t.same(
      claims.map((claim) => claim.hook.id),
      [gone.id],
    )
    t.match(await store.recentDeliveries(off.id, 10), [{ status: 'failed', error: 'webhook inactive', attempts: 0 }])
    t.equal(await store.removeWebhook('proj_a', gone.id), true)
    t.same(await store.recentDeliveries(gone.id, 10), [])
    t.equal(await store.pendingCount(), 0)
  })

  t.test('queue and queueClaimed make deliveries for a webhook of the project only', async (t) => {
    const { store, clock } = await setup(t)
    const hook = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    const event: GatewayEvent = { id: 'evt_1', type: 'case.created', timestamp: new Date(clock.now()).toISOString(), project_id: 'proj_a', data: {} }
    t.equal(await store.queue('proj_b', hook.id, event, clock.now(), false), 'missing')
    t.match(await store.queue('proj_a', hook.id, event, clock.now(), false), { status: 'pending', event, test: false })
    t.equal(await store.queueClaimed('proj_b', hook.id, event, clock.now(), TIMEOUT_MS), undefined)
    const claim = await store.queueClaimed('proj_a', hook.id, event, clock.now(), TIMEOUT_MS)
    t.match(claim, { before: { attempts: 0, test: true }, claimed: { attempts: 1, test: true, claim: String } })
    t.match((await store.settle(claim!, failed, clock.now(), 1)).settled, { settlement: 'failed' }, 'a test delivery is attempted once')
    t.match(await store.webhook('proj_a', hook.id), { active: true, consecutiveFailures: 0 }, 'and never counts toward disabling')
    await store.updateWebhook('proj_a', hook.id, { active: false })
    t.equal(await store.queue('proj_a', hook.id, event, clock.now(), false), 'inactive')
  })

  t.test('finished deliveries are pruned after their time, a bounded number at once', async (t) => {
    const { store, clock, emit } = await setup(t)
    const hook = await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    for (let i = 0; i < 3; i++) await emit('case.created', 'proj_a')
    await store.fanOut(100, clock.now())
    for (const claim of (await store.claimDue(clock.now(), TIMEOUT_MS, limits())).claims) await store.settle(claim, ok, clock.now(), 20)
    await store.prune(clock.now(), 2)
    t.equal((await store.recentDeliveries(hook.id, 10)).length, 3, 'none finished before then')
    await store.prune(clock.now() + 1, 2)
    t.equal((await store.recentDeliveries(hook.id, 10)).length, 1)
  })
}

t.test('LMDB', (t) => suite(t, 'lmdb'))

t.test('PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await suite(t, 'postgres', server)

  t.test('three gateways claiming at once share the due deliveries and never take one twice', async (t) => {
    const place = await placeOf(t, 'postgres', server)
    const gateways = await Promise.all([1, 2, 3].map(() => place.open()))
    const hooks = await Promise.all(
      [1, 2, 3, 4].map((n) => gateways[0]!.store.createWebhook({ projectId: 'proj_a', url: `https://a.example/${n}`, events: ['*'], secret: SECRET })),
    )
    for (let i = 0; i < 50; i++) await gateways[i % 3]!.emit('case.updated', 'proj_a', { i })
    // Fanned out by all three at once: each event is taken once, so each webhook gets 50.
    await Promise.all(
      gateways.map(async ({ store }) => {
        while ((await store.fanOut(7, place.clock.now())) > 0);
      }),
    )
    for (const hook of hooks) t.equal((await gateways[0]!.store.recentDeliveries(hook.id, 100)).length, 50)

    const claimedBy = await Promise.all(
      gateways.map(async ({ store }) => {
        const ids: string[] = []
        for (;;) {
          const { claims } = await store.claimDue(place.clock.now(), TIMEOUT_MS, limits(5))
          if (claims.length === 0) return ids
          ids.push(...claims.map((claim) => claim.claimed.id))
          for (const claim of claims) await store.settle(claim, ok, place.clock.now(), 20)
        }
      }),
    )
    const ids = claimedBy.flat()
    t.comment(`claimed by each gateway: ${claimedBy.map((c) => c.length).join(', ')}`)
    t.equal(ids.length, 200, 'every delivery claimed')
    t.equal(new Set(ids).size, 200, 'none twice')
    t.equal(await gateways[1]!.store.pendingCount(), 0)
  })

  t.test('a claim held by a gateway that died is taken by another once its lease runs out, and the dead one cannot record', async (t) => {
    const place = await placeOf(t, 'postgres', server)
    const [dying, survivor] = await Promise.all([place.open(), place.open()])
    await dying!.store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    await dying!.emit('violation.detected', 'proj_a')
    await survivor!.store.fanOut(100, place.clock.now())
    const [lost] = (await dying!.store.claimDue(place.clock.now(), TIMEOUT_MS, limits())).claims
    t.same((await survivor!.store.claimDue(place.clock.now(), TIMEOUT_MS, limits())).claims, [], 'held while the lease runs')
    place.clock.advance(LEASE_MS)
    const [taken] = (await survivor!.store.claimDue(place.clock.now(), TIMEOUT_MS, limits())).claims
    t.match(taken, { claimed: { id: lost!.claimed.id, attempts: 2 } })
    t.same(await dying!.store.settle(lost!, ok, place.clock.now(), 20), {}, 'the late outcome of the lost claim is not recorded')
    await dying!.store.release(lost!)
    t.match((await survivor!.store.settle(taken!, ok, place.clock.now(), 20)).settled, { settlement: 'succeeded' })
  })

  t.test('every gateway opens the secrets another sealed: the generated key is kept in the database', async (t) => {
    const place = await placeOf(t, 'postgres', server)
    const [a, b] = await Promise.all([place.open(), place.open()])
    const hook = await a!.store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    t.equal(b!.box.open((await b!.store.webhook('proj_a', hook.id))!.sealedSecret, hook.id), SECRET)
  })

  t.test('with the database away, a request fails fast with DependencyUnavailableError', async (t) => {
    const place = await placeOf(t, 'postgres', server)
    const { store } = await place.open()
    await store.createWebhook({ projectId: 'proj_a', url: 'https://a.example/', events: ['*'], secret: SECRET })
    await server.stop()
    const started = performance.now()
    const err = await store.webhooks('proj_a').catch((e: unknown) => e)
    t.ok(err instanceof DependencyUnavailableError, 'DependencyUnavailableError')
    t.equal((err as DependencyUnavailableError).status, 503)
    t.ok(performance.now() - started < 5_000, 'within the connect timeout')
    await t.rejects(store.claimDue(place.clock.now(), TIMEOUT_MS, limits()))
    await server.start()
    t.equal((await store.webhooks('proj_a')).length, 1, 'served again once it is back')
  })
})
