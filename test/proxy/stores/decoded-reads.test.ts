import t, { type Test } from 'tap'
import { decodedReads } from '../../../proxy/stores/decoded-reads.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'

interface Row {
  readonly name: string
  readonly active: boolean
}

function setup(t: Test, records: boolean) {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const plugin = store.forPlugin('test')
  return plugin.open<Row>('rows', { records })
}

for (const records of [true, false]) {
  t.test(`reads follow every committed change (${records ? 'shared structures' : 'plain msgpack'})`, async (t) => {
    const db = setup(t, records)
    const read = decodedReads(db, 10)
    t.equal(read('a'), undefined)
    await db.put('a', { name: 'first', active: true })
    const first = read('a')
    t.same(first, { name: 'first', active: true })
    t.equal(read('a'), first, 'unchanged bytes give back the value decoded before')
    await db.put('a', { name: 'first', active: false })
    t.same(read('a'), { name: 'first', active: false })
    await db.put('a', { name: 'first', active: true })
    t.same(read('a'), { name: 'first', active: true }, 'a value changed back is read back')
    await db.remove('a')
    t.equal(read('a'), undefined)
  })
}

t.test('at most maxEntries values are kept decoded', async (t) => {
  const db = setup(t, true)
  const read = decodedReads(db, 2)
  await db.put('a', { name: 'a', active: true })
  await db.put('b', { name: 'b', active: true })
  await db.put('c', { name: 'c', active: true })
  const a = read('a')
  read('b')
  t.equal(read('a'), a, 'kept while within the bound')
  read('c')
  t.not(read('a'), a, 'the oldest is decoded anew once the bound is passed')
  t.same(read('a'), a)
})
