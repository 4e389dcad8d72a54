// Limit state in Redis, shared by every gateway on it. One script per check reads a key's bucket
// and quota, takes a token and a request as takeToken and takeQuota do, writes them back and
// answers with the state it read: a single round trip, atomic on the server. The verdict, and so
// every number in the headers, comes from checkLimits on that state, in TypeScript: the script
// only has to reach the same next state, which the tests check against checkLimits.
import type { Redis } from 'ioredis'
import type { SharedRedis } from '../../../proxy/stores/redis.ts'
import { checkLimits, type KeyLimitState } from '../logic/check-limits.ts'
import type { LimitStore } from './index.ts'

// KEYS[1] the key's hash (fields tokens, updated, day, used).
// ARGV nowMs, perMinute, capacity, perDay, graceMs; an empty limit is unlimited.
// Numbers are written with 17 significant digits so that they read back as the same doubles.
const CHECK_LIMITS_LUA = `
local now = tonumber(ARGV[1])
local perMinute = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local perDay = tonumber(ARGV[4])
local keepMs = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated', 'day', 'used')
local function exact(n) return string.format('%.17g', n) end

local bucketAllowed = true
local tokens
if perMinute then
  local perMs = perMinute / 60000
  local available = capacity
  if state[1] and state[2] then
    local elapsed = math.max(0, now - tonumber(state[2]))
    available = math.min(capacity, tonumber(state[1]) + elapsed * perMs)
  end
  bucketAllowed = available >= 1
  tokens = available
  if bucketAllowed then tokens = available - 1 end
  keepMs = keepMs + math.ceil((capacity - tokens) / perMs)
end

local quotaAllowed = true
local day, used
if perDay then
  day = math.floor(now / 86400000)
  used = 0
  if state[3] and state[4] and tonumber(state[3]) == day then used = tonumber(state[4]) end
  quotaAllowed = used < perDay
  if quotaAllowed then used = used + 1 end
  keepMs = math.max(keepMs, tonumber(ARGV[5]) + (day + 1) * 86400000 - now)
end

local allowed = bucketAllowed and quotaAllowed
if perMinute then
  redis.call('HSET', KEYS[1], 'tokens', exact(tokens), 'updated', exact(now))
else
  redis.call('HDEL', KEYS[1], 'tokens', 'updated')
end
-- A refused request does not use up the daily quota: the quota read stays as it was.
if allowed then
  if perDay then
    redis.call('HSET', KEYS[1], 'day', exact(day), 'used', exact(used))
  else
    redis.call('HDEL', KEYS[1], 'day', 'used')
  end
end
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(keepMs)))
return state
`

// Past the moment a key's bucket is full again and its day is over, its state means nothing and
// the key expires; the grace keeps it while the clocks of different hosts disagree a little.
const GRACE_MS = 60_000

type StoredState = [tokens: string | null, updated: string | null, day: string | null, used: string | null]

interface LimitScript {
  tollgateCheckLimits(key: string, nowMs: string, perMinute: string, capacity: string, perDay: string, graceMs: string): Promise<StoredState>
}

function defineLimitScript(client: Redis): LimitScript {
  client.defineCommand('tollgateCheckLimits', { numberOfKeys: 1, lua: CHECK_LIMITS_LUA })
  return client as unknown as LimitScript
}

export function stateOf([tokens, updated, day, used]: StoredState): KeyLimitState {
  return {
    ...(tokens === null || updated === null ? {} : { bucket: { tokens: Number(tokens), updatedMs: Number(updated) } }),
    ...(day === null || used === null ? {} : { quota: { day: Number(day), used: Number(used) } }),
  }
}

const limitArg = (n: number | null) => (n === null ? '' : String(n))

export function redisLimitStore(redis: SharedRedis): LimitStore {
  const script = defineLimitScript(redis.client)
  const prefix = `${redis.prefix('rate-limit')}key:`
  return {
    async check(keyId, limits, nowMs) {
      if (limits.perMinute === null && limits.perDay === null) return undefined
      const read = await redis.run(() => script.tollgateCheckLimits(
        prefix + keyId, String(nowMs), limitArg(limits.perMinute), limitArg(limits.burst ?? limits.perMinute), limitArg(limits.perDay), String(GRACE_MS),
      ))
      return checkLimits(limits, stateOf(read), nowMs)
    },
  }
}
