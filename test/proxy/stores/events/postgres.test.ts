// The shared event outbox: an event exists only if its transaction commits, gateways taking at
// once never take the same event, and every gateway hears of an event another one committed.
import t, { type Test } from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { openSharedEvents } from '../../../../proxy/stores/events/postgres.ts'
import { POSTGRES_MISSING, startPostgres } from '../../../helpers/postgres-server.ts'

const log = pino({ level: 'silent' })

t.test('shared events', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)

  type Gateway = Awaited<ReturnType<typeof gateways>>[number]

  async function gateways(t: Test, count: number) {
    const url = await server.freshDatabase(t)
    const clock = { now: () => 1_700_000_000_000 }
    return Promise.all(
      Array.from({ length: count }, async () => {
        const database = openDatabase(url, log)
        const outbox = await openSharedEvents(database.forPlugin('core'), clock, log)
        t.teardown(async () => {
          await outbox.close()
          await database.close()
        })
        return { core: database.forPlugin('core'), outbox }
      }),
    )
  }

  t.test('an event commits with its transaction or not at all', async (t) => {
    const { core, outbox } = (await gateways(t, 1))[0]!
    const kept = await core.transaction((sql) => outbox.emit(sql, 'alert.created', 'p1', { zeta: 1, alpha: 2, sender: 'a\u0000b' }))
    await t.rejects(
      core.transaction(async (sql) => {
        await outbox.emit(sql, 'alert.created', 'p1', { n: 2 })
        throw new Error('the change failed')
      }),
    )
    const taken = await core.transaction((sql) => outbox.take(sql, 10))
    t.same(taken, [kept], 'only the committed event, as emitted')
    t.equal(JSON.stringify(taken[0]), JSON.stringify(kept), 'its keys in their order, so it is sent as emitted')
    t.same(await core.transaction((sql) => outbox.take(sql, 10)), [], 'taken events are gone')
  })

  t.test('a rolled-back take gives its events back', async (t) => {
    const { core, outbox } = (await gateways(t, 1))[0]!
    await core.transaction((sql) => outbox.emit(sql, 'case.created', 'p1', {}))
    await t.rejects(
      core.transaction(async (sql) => {
        t.equal((await outbox.take(sql, 10)).length, 1)
        throw new Error('the consumer crashed')
      }),
    )
    t.equal((await core.transaction((sql) => outbox.take(sql, 10))).length, 1)
  })

  t.test('gateways taking at once share the events and none is taken twice', async (t) => {
    const all = await gateways(t, 3)
    const { core, outbox } = all[0]!
    for (let i = 0; i < 10; i++) {
      await core.transaction(async (sql) => {
        for (let j = 0; j < 20; j++) await outbox.emit(sql, 'violation.detected', `p${j % 3}`, { i, j })
      })
    }
    const takenBy = await Promise.all(
      all.map(async ({ core, outbox }) => {
        const ids: string[] = []
        for (;;) {
          const batch = await core.transaction(async (sql) => {
            const events = await outbox.take(sql, 7)
            // Hold the rows a moment so the other takers run into them and skip them.
            await sql.query('SELECT pg_sleep(0.01)')
            return events
          })
          if (batch.length === 0) return ids
          ids.push(...batch.map((e) => e.id))
        }
      }),
    )
    const ids = takenBy.flat()
    t.equal(ids.length, 200, 'every event taken')
    t.equal(new Set(ids).size, 200, 'none twice')
  })

  t.test('every gateway hears of an event another committed', async (t) => {
    const [a, b] = (await gateways(t, 2)) as [Gateway, Gateway]
    let woken = 0
    const heard = new Promise<void>((resolve) =>
      b.outbox.onEmit(() => {
        if (++woken > 1) resolve()
      }),
    )
    // The first call is the listener's own catch-up once it is connected.
    await new Promise<void>((resolve) => {
      const check = () => (woken >= 1 ? resolve() : setImmediate(check))
      check()
    })
    await a.core.transaction((sql) => a.outbox.emit(sql, 'alert.created', 'p1', {}))
    await heard
    t.pass('notified')
  })
})
