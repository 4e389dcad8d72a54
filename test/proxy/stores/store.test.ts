import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../../proxy/config.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'

for (const name of ['data', 'tollgate.d', 'store.v2']) {
  t.test(`a data directory named ${name}, made beforehand or not, holds the store`, async (t) => {
    for (const made of [false, true]) {
      const path = join(freshDataDir(t), `${made ? 'made-' : ''}${name}`)
      if (made) mkdirSync(path)
      const store = openStore(path)
      const db = store.forPlugin('test').open<number>('values')
      await db.put('a', 1)
      t.equal(db.get('a'), 1)
      await store.close()
      t.ok(existsSync(join(path, 'data.mdb')), `${path}/data.mdb`)
    }
  })
}

t.test('a data path that cannot be a directory stops with a line naming TOLLGATE_DATA', async (t) => {
  const file = join(freshDataDir(t), 'data')
  writeFileSync(file, '')
  t.throws(() => openStore(file), new ConfigError(`the data directory ${file} is a file, not a directory (TOLLGATE_DATA)`))
  t.throws(
    () => openStore(join(file, 'below')),
    new ConfigError(`the data directory ${join(file, 'below')} cannot be made: part of that path is a file (TOLLGATE_DATA)`),
  )
})

t.test('one process opens a path once: a second handle shares the environment and closes only itself', async (t) => {
  const dir = freshDataDir(t)
  const first = openStore(dir)
  const second = openStore(join(dir, '.'))
  t.equal(second.root, first.root, 'the same environment')
  const db = first.forPlugin('p').open<number>('n')
  await db.put('k', 1)
  // A database opened on the second handle while the first one's write is in flight: with two
  // environments this was a deadlock.
  const pending = db.put('k', 2)
  t.equal(second.forPlugin('p').open<number>('other').get('x'), undefined)
  await pending
  await second.close()
  t.equal(db.get('k'), 2, 'the first handle still works after the second closed')
  await first.close()
  const third = openStore(dir)
  t.not(third.root, first.root, 'a fresh environment once every handle closed')
  await third.close()
})
