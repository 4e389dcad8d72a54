// The answers in LMDB, for the processes of one host. Every write is one transaction over the answers
// and their age index, so the two never disagree, also when several processes share the
// environment; reads in this process see a write before it commits, so a request sent right after
// its twin's answer hits. Each answer's storedAt is kept beside it on its own as well: replacing an
// answer must find its entry in the age index, and decoding the whole previous answer for that
// one number was most of the cost of a write (a request with no-cache replaces its answer every time).
import { decodedReads } from '../../../proxy/stores/decoded-reads.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import type { AnswerStore, StoredAnswer } from './index.ts'

const HOT_ANSWERS = 512

type AgeKey = [storedAt: number, key: string]

// Entries expire when read: a hit needs storedAt within the project's TTL of the gateway's clock.
export function lmdbAnswerStore(store: PluginStore, maxEntries: number): AnswerStore {
  const answers = store.open<StoredAnswer>('answers')
  // Keys [storedAt, key] sort oldest first, so eviction reads the head of a range, not every entry.
  const byAge = store.open<null>('by-age')
  const storedAtOf = store.open<number>('stored-at')

  // Hits read the same hot answers over and over; a few hundred kept decoded cover them.
  const storedAnswer = decodedReads(answers, HOT_ANSWERS)
  const unsaved = new Map<string, StoredAnswer>()
  const count = () => (answers.getStats() as { entryCount: number }).entryCount
  // Reading the environment's statistics cost 2.5% of a miss's CPU when done on every write. A
  // write adds at most one entry, so the count is read again only once the writes since the last
  // reading could have taken it past the limit (other processes sharing the store check their own).
  let lastCount = 0
  let writesSince = 0
  function excessAfterWrite(): number {
    if (lastCount + ++writesSince <= maxEntries) return 0
    lastCount = count()
    writesSince = 0
    return lastCount - maxEntries
  }

  function remove(key: string, storedAt: number): void {
    answers.remove(key)
    storedAtOf.remove(key)
    byAge.remove([storedAt, key] satisfies AgeKey)
  }

  /** When the answer under key was stored; answers stored before storedAt was kept on its own are read whole. */
  function storedAtNow(key: string): number | undefined {
    return storedAtOf.get(key) ?? answers.get(key)?.storedAt
  }

  function evictOldest(excess: number): void {
    for (const ageKey of [...byAge.getKeys({ limit: excess })]) {
      const [storedAt, key] = ageKey as AgeKey
      remove(key, storedAt)
    }
  }

  return {
    shared: false,
    get: (key) => unsaved.get(key) ?? storedAnswer(key),
    put(key, answer) {
      unsaved.set(key, answer)
      // Kept in memory until committed: nothing waits for the commit, which goes with its group.
      const saved = store.grouped(() => {
        const previous = storedAtNow(key)
        if (previous !== undefined) byAge.remove([previous, key] satisfies AgeKey)
        answers.put(key, answer)
        storedAtOf.put(key, answer.storedAt)
        byAge.put([answer.storedAt, key] satisfies AgeKey, null)
        const excess = excessAfterWrite()
        if (excess > 0) {
          evictOldest(excess)
          lastCount -= excess
        }
      })
      // then, not finally: finally makes closures and a promise of its own on every write.
      const forget = () => {
        if (unsaved.get(key) === answer) unsaved.delete(key)
      }
      return saved.then(forget, (err: unknown) => {
        forget()
        throw err
      })
    },
    removeIfStoredAt(key, storedAt) {
      return store.transaction(() => {
        if (storedAtNow(key) === storedAt) remove(key, storedAt)
      })
    },
    count,
  }
}
