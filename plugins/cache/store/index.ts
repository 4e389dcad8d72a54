// Where the answers are stored: in LMDB for the processes of one host (lmdb.ts), or with REDIS_URL
// in Redis for every gateway on it (redis.ts), where concurrent identical misses on different
// gateways also make one model call (redis-flights.ts).
import type { CompletionResult, ServingProvider } from '../../../proxy/pipeline/completion.ts'
import type { ModelName } from '../../../proxy/pipeline/models.ts'
import type { SharedRedis } from '../../../proxy/stores/redis.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { lmdbAnswerStore } from './lmdb.ts'
import { redisAnswerStore } from './redis.ts'
import { sharedFlights, type SharedFlights } from './redis-flights.ts'

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

interface StoreDeps {
  readonly store: PluginStore
  readonly redis: SharedRedis | undefined
}

export function openAnswerStore({ store, redis }: StoreDeps, config: { readonly maxEntries: number }): AnswerStore {
  return redis === undefined ? lmdbAnswerStore(store, config.maxEntries) : redisAnswerStore(redis, config.maxEntries)
}

/** The coalescing of misses across gateways: only on Redis, and only when they may wait for each other. */
export function openSharedFlights({ redis }: StoreDeps, answers: AnswerStore, config: { readonly sharedWaitMs: number }): SharedFlights | undefined {
  return redis === undefined || config.sharedWaitMs === 0 ? undefined : sharedFlights(redis, answers, config.sharedWaitMs)
}
