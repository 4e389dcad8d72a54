// Where the answers are stored: in LMDB for the processes of one host (here), or in Redis for
// every gateway on it (redis.ts). In LMDB every write is one transaction over the answers
// and their age index, so the two never disagree, also when several processes share the
// environment; reads in this process see a write before it commits, so a request sent right after
// its twin's answer hits. Each answer's storedAt is kept beside it on its own as well: replacing an
// answer must find its entry in the age index, and decoding the whole previous answer for that
// one number was most of the cost of a write (a request with no-cache replaces its answer every time).
import type { CompletionResult, ServingProvider } from '../../../proxy/pipeline/completion.ts'
import type { ModelName } from '../../../proxy/pipeline/models.ts'
import { decodedReads } from '../../../proxy/stores/decoded-reads.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'

export interface StoredAnswer {
  readonly text: string
  readonly provider: ServingProvider
  readonly model: ModelName
  readonly usage: CompletionResult['usage']
  /** Clock milliseconds; an entry expires at storedAt plus its project's current TTL. */
  readonly storedAt: number
  /** Kept only for answers that have them, so a plain answer's record stays as small as before. */
  toolCalls?: CompletionResult['toolCalls']
  finishReason?: CompletionResult['finishReason']
  embeddings?: CompletionResult['embeddings']
}

const HOT_ANSWERS = 512

type AgeKey = [storedAt: number, key: string]

export interface AnswerStore {
  /**
   * Other hosts read these answers: a write is awaited before the answer goes out, so that the
   * next identical request hits whichever gateway takes it. A local store's writes are seen in
   * this process at once and commit in the background.
   */
  readonly shared: boolean
  get(key: string): StoredAnswer | undefined | Promise<StoredAnswer | undefined>
  /** Stores an answer for ttlMs at least, then evicts entries beyond maxEntries. */
  put(key: string, answer: StoredAnswer, ttlMs: number): Promise<void>
  /** Removes the entry stored at storedAt; an entry stored again since then stays. */
  removeIfStoredAt(key: string, storedAt: number): Promise<void>
  count(): number | Promise<number>
}

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
      return saved.finally(() => {
        if (unsaved.get(key) === answer) unsaved.delete(key)
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
