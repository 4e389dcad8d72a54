// Stored answers in Redis, shared by every gateway on it. Each answer is one JSON value under its
// cache key (which names the project), expiring with the project's TTL (PX). A sorted set of the
// keys by expiry time keeps the entry count cheap to read and bounds the entries at maxEntries,
// evicting those closest to expiry; it is written in the same script as the answer, so the two
// agree. The scripts take Redis's own clock for expiry, as PX does, in microseconds so that
// answers stored one after the other leave in that order.
import type { Redis } from 'ioredis'
import type { SharedRedis } from '../../../proxy/stores/redis.ts'
import type { AnswerStore, StoredAnswer } from './index.ts'

// KEYS[1] the answer, KEYS[2] the index. ARGV the answer, its TTL in ms, the index member,
// the answers' key prefix, maxEntries.
const PUT_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl * 1000, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if excess > 0 then
  local evicted = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #evicted, 2 do redis.call('DEL', ARGV[4] .. evicted[i]) end
end
`

// KEYS[1] the answer, KEYS[2] the index. ARGV storedAt, the index member.
const REMOVE_IF_STORED_AT_LUA = `
local stored = redis.call('GET', KEYS[1])
if stored and cjson.decode(stored).storedAt == tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
end
`

// KEYS[1] the index: the entries not yet expired.
const COUNT_LUA = `
local time = redis.call('TIME')
return redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.17g', tonumber(time[1]) * 1000000 + tonumber(time[2])), '+inf')
`

interface AnswerScripts {
  tollgateCachePut(answerKey: string, indexKey: string, answer: string, ttlMs: string, member: string, answerPrefix: string, maxEntries: string): Promise<null>
  tollgateCacheRemoveIfStoredAt(answerKey: string, indexKey: string, storedAt: string, member: string): Promise<null>
  tollgateCacheCount(indexKey: string): Promise<number>
}

function defineScripts(client: Redis): AnswerScripts {
  client.defineCommand('tollgateCachePut', { numberOfKeys: 2, lua: PUT_LUA })
  client.defineCommand('tollgateCacheRemoveIfStoredAt', { numberOfKeys: 2, lua: REMOVE_IF_STORED_AT_LUA })
  client.defineCommand('tollgateCacheCount', { numberOfKeys: 1, lua: COUNT_LUA, readOnly: true })
  return client as unknown as AnswerScripts
}

export function redisAnswerStore(redis: SharedRedis, maxEntries: number): AnswerStore {
  const scripts = defineScripts(redis.client)
  const answerPrefix = `${redis.prefix('cache')}answer:`
  const indexKey = `${redis.prefix('cache')}by-expiry`
  return {
    shared: true,
    async get(key) {
      const stored = await redis.run((c) => c.get(answerPrefix + key))
      return stored === null ? undefined : (JSON.parse(stored) as StoredAnswer)
    },
    async put(key, answer, ttlMs) {
      await redis.run(() =>
        scripts.tollgateCachePut(answerPrefix + key, indexKey, JSON.stringify(answer), String(ttlMs), key, answerPrefix, String(maxEntries)),
      )
    },
    async removeIfStoredAt(key, storedAt) {
      await redis.run(() => scripts.tollgateCacheRemoveIfStoredAt(answerPrefix + key, indexKey, String(storedAt), key))
    },
    count: () => redis.run(() => scripts.tollgateCacheCount(indexKey)),
  }
}
