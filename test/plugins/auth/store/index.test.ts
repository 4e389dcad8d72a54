// The registry of projects and keys, the same suite on LMDB and on PostgreSQL; then what only the
// shared one promises: several gateways on one database see each other's writes.
import t, { type Test } from 'tap'
import pino from 'pino'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError, OverloadedError } from '../../../../proxy/pipeline/errors.ts'
import { openStore } from '../../../../proxy/stores/store.ts'
import { generateKey } from '../../../../plugins/auth/logic/key-format.ts'
import { openRegistry } from '../../../../plugins/auth/store/index.ts'
import { RegistryError, type AuthRegistry } from '../../../../plugins/auth/store/registry.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../../helpers/postgres-server.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'
import { freshDataDir, TEST_SECRET } from '../../../helpers/start-gateway.ts'
import { until } from '../../../helpers/until.ts'

const log = pino({ level: 'silent' })
const START = Date.parse('2026-03-01T12:00:00Z')

async function lmdbRegistry(t: Test, clock: Clock): Promise<AuthRegistry> {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const registry = await openRegistry({ store: store.forPlugin('auth') }, TEST_SECRET, clock, true)
  t.teardown(() => registry.close())
  return registry
}

/** A registry as a gateway opens it on `url`, closed with the test. */
async function postgresRegistry(t: Test, url: string, clock: Clock, secret: string | undefined = TEST_SECRET): Promise<AuthRegistry> {
  const database = openDatabase(url, log)
  const registry = await openRegistry({ database: database.forPlugin('auth'), log }, secret, clock, true)
  t.teardown(async () => {
    await registry.close()
    await database.close()
  })
  return registry
}

/** Waits for what another gateway's notification brings; the milliseconds since `started`. */
async function eventually(t: Test, what: string, check: () => boolean, started = performance.now()): Promise<number> {
  await until(check, what, 5_000)
  const took = performance.now() - started
  t.pass(`${what} (${took.toFixed(1)} ms)`)
  return took
}

async function refused(t: Test, work: Promise<unknown>): Promise<void> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(err instanceof RegistryError, `refused: ${(err as Error | undefined)?.message}`)
}

type Open = (t: Test, clock: Clock) => Promise<AuthRegistry>

function registrySuite(t: Test, open: Open): void {
  t.test('projects are created, read, listed and changed; a Governor change bumps its version', async (t) => {
    const registry = await open(t, manualClock(START))
    const a = await registry.createProject({ name: 'a', plan: 'pro', budgetDollars: 50 })
    const b = await registry.createProject({ name: 'b', plan: 'free', budgetDollars: 5, organizationId: 'org_1' })
    t.match(a, {
      id: /^proj_/,
      name: 'a',
      plan: 'pro',
      budgetDollars: 50,
      cacheEnabled: true,
      governor: { enabled: true, version: 1 },
      createdAt: '2026-03-01T12:00:00.000Z',
    })
    t.same(registry.getProject(a.id), a)
    t.same(
      registry.listProjects().map((p) => p.id),
      [a.id, b.id],
    )
    t.equal(registry.getProject(b.id)?.organizationId, 'org_1')
    const changed = await registry.updateProject(a.id, { plan: 'growth', budgetDollars: 75, governor: { strictMode: true } })
    t.match(changed, { plan: 'growth', budgetDollars: 75, governor: { strictMode: true, enabled: true, version: 2 } })
    t.same(registry.getProject(a.id), changed)
    t.equal((await registry.updateProject(a.id, { name: 'renamed' })).governor.version, 2, 'other changes leave the version')
    await refused(t, registry.updateProject('proj_none', { name: 'x' }))
    t.equal(registry.getProject('proj_none'), undefined)
  })

  t.test('keys are created, found by their value only, listed without their hash, deactivated and deleted', async (t) => {
    const clock = manualClock(START)
    const registry = await open(t, clock)
    const project = await registry.createProject({ name: 'p', plan: 'pro', budgetDollars: 10 })
    const { record, key } = await registry.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'ci' })
    t.match(record, { id: /^key_/, projectId: project.id, type: 'sk', env: 'prod', name: 'ci', status: 'active', lastUsedAt: null })
    t.notOk('hash' in record, 'no hash in what is shown')
    t.match(registry.findByKey(key), { id: record.id, status: 'active', hash: /^[0-9a-f]{64}$/ })
    t.match(await registry.lookupKey(key), { id: record.id })
    const other = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')
    t.equal(registry.findByKey(other), undefined)
    t.equal(await registry.lookupKey(other), undefined)
    t.same(
      registry.listKeys(project.id).map((k) => k.id),
      [record.id],
    )
    t.same(registry.getKey(record.id), record)

    clock.advance(1_000)
    await registry.touchKey(record.id)
    t.equal(registry.getKey(record.id)?.lastUsedAt, '2026-03-01T12:00:01.000Z')

    t.match(await registry.setKeyStatus(record.id, 'inactive'), { status: 'inactive', lastUsedAt: '2026-03-01T12:00:01.000Z' })
    t.equal(registry.findByKey(key)?.status, 'inactive')
    t.equal((await registry.setKeyStatus(record.id, 'active')).status, 'active')
    await registry.deleteKey(record.id)
    t.equal(registry.findByKey(key), undefined)
    t.equal(await registry.lookupKey(key), undefined)
    t.equal(registry.getKey(record.id), undefined)
    t.same(registry.listKeys(project.id), [])

    await refused(t, registry.createKey({ projectId: 'proj_none', type: 'sk', env: null, name: 'x' }))
    await refused(t, registry.setKeyStatus(record.id, 'inactive'))
    await refused(t, registry.deleteKey(record.id))
  })
}

t.test('LMDB', async (t) => {
  registrySuite(t, lmdbRegistry)
})

t.test('PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  registrySuite(t, async (t, clock) => postgresRegistry(t, await server.freshDatabase(t), clock))
  sharedSuite(t, server)
})

function sharedSuite(t: Test, server: PostgresServer): void {
  t.test('a key made on one gateway is found on another at its first use; changes reach every gateway by notification', async (t) => {
    const url = await server.freshDatabase(t)
    const clock = manualClock(START)
    const one = await postgresRegistry(t, url, clock)
    const two = await postgresRegistry(t, url, clock)
    const project = await one.createProject({ name: 'p', plan: 'pro', budgetDollars: 10 })
    const { record, key } = await one.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'ci' })
    // No waiting for the notification: a key not in memory is looked up in the database.
    t.match(await two.lookupKey(key), { id: record.id, status: 'active' })
    t.same(two.getProject(project.id), project, 'with its project')

    // From the call that deactivates (its commit included) to the other gateway refusing the key.
    const latencies: number[] = []
    for (let i = 0; i < 50; i++) {
      const started = performance.now()
      await one.setKeyStatus(record.id, 'inactive')
      latencies.push(await eventually(t, 'the deactivation reached the other gateway', () => two.findByKey(key)?.status === 'inactive', started))
      await one.setKeyStatus(record.id, 'active')
      await eventually(t, 'the reactivation reached the other gateway', () => two.findByKey(key)?.status === 'active')
    }
    latencies.sort((a, b) => a - b)
    t.comment(
      `deactivation refused by the other gateway after p50 ${latencies[25]!.toFixed(1)} ms, p90 ${latencies[45]!.toFixed(1)} ms, max ${latencies[49]!.toFixed(1)} ms`,
    )

    await one.updateProject(project.id, { plan: 'growth', budgetDollars: 99, governor: { redactOutput: true, autoApproveThreshold: 80 } })
    await eventually(t, 'plan, budget and Governor settings reached the other gateway', () => {
      const seen = two.getProject(project.id)
      return (
        seen?.plan === 'growth' &&
        seen.budgetDollars === 99 &&
        seen.governor.redactOutput &&
        seen.governor.autoApproveThreshold === 80 &&
        seen.governor.version === 2
      )
    })

    clock.advance(5_000)
    await one.touchKey(record.id)
    await eventually(t, 'last used reached the other gateway', () => two.getKey(record.id)?.lastUsedAt === '2026-03-01T12:00:05.000Z')

    await two.deleteKey(record.id)
    await eventually(t, 'the deletion reached the first gateway', () => one.findByKey(key) === undefined && one.getKey(record.id) === undefined)
    t.same(one.listKeys(project.id), [])
  })

  t.test('a flood of unknown keys takes a bounded number of connections; beyond it they get 503 at once', async (t) => {
    const url = await server.freshDatabase(t)
    const registry = await postgresRegistry(t, url, manualClock(START))
    const answers = await Promise.all(Array.from({ length: 100 }, () => registry.lookupKey(generateKey('sk', null)).catch((e: unknown) => e)))
    t.equal(answers.filter((a) => a === undefined).length, 16, 'looked up and refused')
    t.equal(answers.filter((a) => a instanceof OverloadedError).length, 84, 'answered 503 without a query')
    t.equal(await registry.lookupKey(generateKey('sk', null)), undefined, 'the bound is free again')
  })

  t.test('gateways without a configured secret share the one the first of them made', async (t) => {
    const url = await server.freshDatabase(t)
    const [one, two] = await Promise.all([postgresRegistry(t, url, manualClock(START), undefined), postgresRegistry(t, url, manualClock(START), undefined)])
    const project = await one!.createProject({ name: 'p', plan: 'pro', budgetDollars: 10 })
    const { record, key } = await one!.createKey({ projectId: project.id, type: 'sk', env: null, name: 'k' })
    t.match(await two!.lookupKey(key), { id: record.id })
  })

  t.test('PostgreSQL away: a key in memory still authenticates, an unknown one fails with 503, and all is read again on its return', async (t) => {
    const url = await server.freshDatabase(t)
    const one = await postgresRegistry(t, url, manualClock(START))
    const two = await postgresRegistry(t, url, manualClock(START))
    const project = await one.createProject({ name: 'p', plan: 'pro', budgetDollars: 10 })
    const { record, key } = await one.createKey({ projectId: project.id, type: 'sk', env: null, name: 'k' })
    await eventually(t, 'the key reached the other gateway', () => two.findByKey(key) !== undefined)
    await server.stop()
    t.match(two.findByKey(key), { id: record.id, status: 'active' }, 'known keys are answered from memory')
    t.match(await two.lookupKey(key), { id: record.id }, 'without a round trip')
    const err = await two.lookupKey(generateKey('sk', null)).catch((e: unknown) => e)
    t.ok(err instanceof DependencyUnavailableError, 'an unknown key cannot be refused without the database')
    await server.start()
    // Written while the other gateway's notification connection may still be down: its reconnection reads everything again.
    await one.setKeyStatus(record.id, 'inactive')
    await eventually(t, 'the deactivation reached the other gateway after the restart', () => two.findByKey(key)?.status === 'inactive')
  })
}
