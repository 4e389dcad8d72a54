// The LMDB answer store: replacing an answer finds the old one's place in the age index without
// decoding it, eviction still removes the oldest, and an answer stored before storedAt was kept on
// its own is still replaced and expired correctly.
import t from 'tap'
import type { StoredAnswer } from '../../../../plugins/cache/store/index.ts'
import { lmdbAnswerStore } from '../../../../plugins/cache/store/lmdb.ts'
import { openStore } from '../../../../proxy/stores/store.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'

const answerAt = (storedAt: number, text = `answer at ${storedAt}`): StoredAnswer => ({
  text,
  provider: 'openai',
  model: 'gpt-4o-mini',
  usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, costCents: 0.01 },
  storedAt,
})

/** The plugin's store, with reads of its `answers` database counted. */
function countingStore(store: PluginStore) {
  const reads = { answers: 0 }
  const counting: PluginStore = {
    ...store,
    open<V>(name: string, options?: Parameters<PluginStore['open']>[1]) {
      const db = store.open<V>(name, options)
      if (name !== 'answers') return db
      const get = db.get.bind(db)
      db.get = ((key) => {
        reads.answers++
        return get(key)
      }) as typeof db.get
      return db
    },
  }
  return { store: counting, reads }
}

t.test('replacing an answer decodes no previous answer, and the oldest is still evicted first', async (t) => {
  const root = openStore(freshDataDir(t))
  t.teardown(() => root.close())
  const { store, reads } = countingStore(root.forPlugin('cache'))
  const answers = lmdbAnswerStore(store, 2)
  await answers.put('a', answerAt(1), 1000)
  await answers.put('b', answerAt(2), 1000)
  const before = reads.answers
  await answers.put('a', answerAt(3), 1000)
  t.equal(reads.answers - before, 0, 'the previous answer under the key was not read')
  // Three writes of two keys: nothing to evict yet; a third key evicts the oldest, now b.
  await answers.put('c', answerAt(4), 1000)
  t.equal(answers.get('b'), undefined, 'b, stored longest ago, is evicted')
  t.match(answers.get('a'), { storedAt: 3 })
  t.match(answers.get('c'), { storedAt: 4 })
})

t.test('an answer stored before storedAt was kept on its own is replaced and removed by its age as before', async (t) => {
  const root = openStore(freshDataDir(t))
  t.teardown(() => root.close())
  const store = root.forPlugin('cache')
  // As an earlier version wrote it: the answer and its age entry only.
  await store.transaction(() => {
    store.open<StoredAnswer>('answers').put('old', answerAt(1))
    store.open<null>('by-age').put([1, 'old'], null)
  })
  const answers = lmdbAnswerStore(store, 10)
  await answers.removeIfStoredAt('old', 1)
  t.equal(answers.get('old'), undefined, 'removed by the storedAt read from the answer itself')
  await store.transaction(() => {
    store.open<StoredAnswer>('answers').put('old', answerAt(1))
    store.open<null>('by-age').put([1, 'old'], null)
  })
  await answers.put('old', answerAt(5), 1000)
  t.same([...store.open<null>('by-age').getKeys()], [[5, 'old']], "the replaced answer's age entry is gone")
})
