// Limit state in Redis, shared by every gateway on it, drawn on through leases (leased.ts): a
// gateway asks Redis once per slice of a key's requests, not once per request. One script per
// lease reads the key's bucket, quota and leases, gives back what the gateway's last slice left
// unused and leases a new one as leaseTokens does, writes them back and answers with the state it
// read: a single round trip, atomic on the server. The grant, and so every number in the headers,
// comes from leaseTokens on that state, in TypeScript: the script only has to reach the same next
// state, which the tests check against leaseTokens.
import type { Redis } from 'ioredis'
import type { SharedRedis } from '../../../proxy/stores/redis.ts'
import { LEASE_LIFE_MS, leaseTokens, type SharedLimitState, type TokenLease } from '../logic/token-leases.ts'
import type { LeaseBackend, Unused } from './leased.ts'

// KEYS[1] the key's hash: fields tokens, updated, day, used, and `lease:<owner>` = "<tokens> <untilMs>".
// ARGV nowMs, perMinute, capacity, perDay, graceMs, owner, need, unused, unusedDay, lifeMs; an
// empty limit is unlimited. Numbers are written with 17 significant digits so that they read back
// as the same doubles.
const LEASE_TOKENS_LUA = `
local now = tonumber(ARGV[1])
local perMinute = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local perDay = tonumber(ARGV[4])
local graceMs = tonumber(ARGV[5])
local owner = 'lease:' .. ARGV[6]
local need = tonumber(ARGV[7])
local unused = tonumber(ARGV[8])
local unusedDay = tonumber(ARGV[9])
local lifeMs = tonumber(ARGV[10])
local function exact(n) return string.format('%.17g', n) end

local read = redis.call('HGETALL', KEYS[1])
local state = {}
local held = 0
local own
local gone = {}
for i = 1, #read, 2 do
  local name, value = read[i], read[i + 1]
  if string.sub(name, 1, 6) == 'lease:' then
    local space = string.find(value, ' ', 1, true)
    local tokens = tonumber(string.sub(value, 1, space - 1))
    if tonumber(string.sub(value, space + 1)) <= now then
      table.insert(gone, name)
    elseif name == owner then
      own = tokens
    else
      held = held + tokens
    end
  else
    state[name] = value
  end
end

local keepMs = graceMs
local free
if perMinute then
  local perMs = perMinute / 60000
  local room = capacity - held - (own or 0)
  local refilled = room
  if state.tokens and state.updated then
    refilled = math.min(room, tonumber(state.tokens) + math.max(0, now - tonumber(state.updated)) * perMs)
  end
  free = math.max(0, refilled)
  if own then free = free + math.min(unused, own) end
end

local day = math.floor(now / 86400000)
local used = 0
local quotaFree
if perDay then
  if state.day and state.used and tonumber(state.day) == day then used = tonumber(state.used) end
  if unusedDay == day then used = math.max(0, used - unused) end
  quotaFree = perDay - used
end

local available
if free then available = math.floor(free) end
if quotaFree and (available == nil or quotaFree < available) then available = quotaFree end
local granted = 0
if need > 0 then
  if available < need then
    granted = math.max(0, available)
  else
    local spare = 0
    if available - need >= 64 then spare = math.min(math.floor((available - need) / 16), 256) end
    granted = need + spare
  end
end

if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
redis.call('HDEL', KEYS[1], owner)
if perMinute then
  local tokens = free - granted
  redis.call('HSET', KEYS[1], 'tokens', exact(tokens), 'updated', exact(now))
  keepMs = keepMs + math.ceil((capacity - tokens) / (perMinute / 60000))
  if granted > 0 then
    redis.call('HSET', KEYS[1], owner, exact(granted) .. ' ' .. exact(now + lifeMs))
    keepMs = math.max(keepMs, graceMs + lifeMs)
  end
else
  redis.call('HDEL', KEYS[1], 'tokens', 'updated')
end
if perDay then
  redis.call('HSET', KEYS[1], 'day', exact(day), 'used', exact(used + granted))
  keepMs = math.max(keepMs, graceMs + (day + 1) * 86400000 - now)
else
  redis.call('HDEL', KEYS[1], 'day', 'used')
end
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(keepMs)))
return read
`

// Past the moment a key's bucket is full again, its leases lapsed and its day is over, its state
// means nothing and the key expires; the grace keeps it while the clocks of different hosts
// disagree a little.
const GRACE_MS = 60_000

const LEASE_PREFIX = 'lease:'

interface LeaseScript {
  tollgateLeaseTokens(key: string, ...args: string[]): Promise<string[]>
}

function defineLeaseScript(client: Redis): LeaseScript {
  client.defineCommand('tollgateLeaseTokens', { numberOfKeys: 1, lua: LEASE_TOKENS_LUA })
  return client as unknown as LeaseScript
}

/** The state a script read (HGETALL's flat list of names and values). */
export function stateOf(read: readonly string[]): SharedLimitState {
  const fields = new Map<string, string>()
  const leases: Record<string, TokenLease> = {}
  for (let i = 0; i + 1 < read.length; i += 2) {
    const [name, value] = [read[i]!, read[i + 1]!]
    if (!name.startsWith(LEASE_PREFIX)) fields.set(name, value)
    else {
      const [tokens, untilMs] = value.split(' ').map(Number)
      leases[name.slice(LEASE_PREFIX.length)] = { tokens: tokens!, untilMs: untilMs! }
    }
  }
  const [tokens, updated, day, used] = ['tokens', 'updated', 'day', 'used'].map((name) => fields.get(name))
  return {
    ...(tokens === undefined || updated === undefined ? {} : { bucket: { tokens: Number(tokens), updatedMs: Number(updated) } }),
    ...(day === undefined || used === undefined ? {} : { quota: { day: Number(day), used: Number(used) } }),
    ...(Object.keys(leases).length === 0 ? {} : { leases }),
  }
}

const limitArg = (n: number | null) => (n === null ? '' : String(n))

/** `owner` names this gateway process in the leases it holds (SELF_OWNER). */
export function redisLeases(redis: SharedRedis, owner: string): LeaseBackend {
  const script = defineLeaseScript(redis.client)
  const prefix = `${redis.prefix('rate-limit')}key:`
  return {
    async lease(keyId, limits, nowMs, need, unused) {
      let given: Unused = { count: 0, day: 0 }
      const read = await redis.run(() => {
        given = unused()
        return script.tollgateLeaseTokens(
          prefix + keyId,
          String(nowMs),
          limitArg(limits.perMinute),
          limitArg(limits.burst ?? limits.perMinute),
          limitArg(limits.perDay),
          String(GRACE_MS),
          owner,
          String(need),
          String(given.count),
          String(given.day),
          String(LEASE_LIFE_MS),
        )
      })
      return leaseTokens(limits, stateOf(read), nowMs, { owner, need, unused: given.count, unusedDay: given.day })
    },
  }
}
