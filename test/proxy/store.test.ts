import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../proxy/config.ts'
import { openStore } from '../../proxy/store.ts'
import { freshDataDir } from '../helpers/start-gateway.ts'

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
  t.throws(() => openStore(join(file, 'below')), new ConfigError(`the data directory ${join(file, 'below')} cannot be made: part of that path is a file (TOLLGATE_DATA)`))
})
