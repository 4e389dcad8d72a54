// Which API keys open the gateway: a well-formed key, known and active, of a project that exists.
// The one rule for the request path and for plugins that take keys outside the chain (the
// accounts plugin's query route), which reach it through the `authenticate` service.
import { parseKey } from './logic/key-format.ts'
import type { AuthRegistry, KeyRecord } from './store/registry.ts'
import type { AuthState, Authenticate } from './state.ts'
import { VerifiedKeys } from './logic/verified-keys.ts'

/** Far more keys than one gateway serves at once. */
const VERIFIED_KEYS = 10_000

const verifiedByRegistry = new WeakMap<AuthRegistry, VerifiedKeys>()

function stateOf(registry: AuthRegistry, record: KeyRecord | undefined): AuthState | undefined {
  if (record === undefined || record.status !== 'active') return undefined
  const project = registry.getProject(record.projectId)
  if (project === undefined) return undefined
  const state: AuthState = { keyId: record.id, keyType: record.type, env: record.env, testMode: record.env === 'dev', project }
  if (record.budgetDollars === undefined && record.rpm === undefined) return state
  return {
    ...state,
    ...(record.budgetDollars === undefined ? {} : { keyBudgetDollars: record.budgetDollars }),
    ...(record.rpm === undefined ? {} : { keyRpm: record.rpm }),
  }
}

/**
 * The state a request carrying this key has; undefined for a key that opens nothing. At once for
 * a key this gateway holds as active (the request path stays free of a promise); a promise for any
 * other, looked up where the keys are shared, which rejects while they cannot be reached, so the
 * request is answered 503, never 401 by mistake.
 */
export function authenticateKey(registry: AuthRegistry, key: string): AuthState | Promise<AuthState | undefined> | undefined {
  let verified = verifiedByRegistry.get(registry)
  if (verified === undefined) {
    verified = new VerifiedKeys(VERIFIED_KEYS)
    verifiedByRegistry.set(registry, verified)
  }
  // Read before the records, so that a change made while they are read is never remembered as current.
  const generation = registry.generation()
  const fingerprint = VerifiedKeys.fingerprint(key)
  const known = verified.get(fingerprint, generation)
  if (known !== undefined) return known
  if (parseKey(key) === undefined) return undefined
  const remember = (state: AuthState | undefined) => {
    if (state !== undefined) verified.set(fingerprint, generation, state)
    return state
  }
  return remember(stateOf(registry, registry.findByKey(key))) ?? registry.lookupKey(key).then((record) => stateOf(registry, record))
}

export function createAuthenticate(registry: AuthRegistry): Authenticate {
  return async (key) => authenticateKey(registry, key)
}
