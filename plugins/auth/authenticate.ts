// Which API keys open the gateway: a well-formed key, known and active, of a project that exists.
// The one rule for the request path and for plugins that take keys outside the chain (the
// accounts plugin's query route), which reach it through the `authenticate` service.
import { parseKey } from './key-format.ts'
import type { AuthRegistry } from './registry.ts'
import type { AuthState, Authenticate } from './state.ts'

/** The key's state as a request carrying it has it; undefined for a key that opens nothing. */
export function authenticateKey(registry: AuthRegistry, key: string): AuthState | undefined {
  if (parseKey(key) === undefined) return undefined
  const record = registry.findByKey(key)
  if (record === undefined || record.status !== 'active') return undefined
  const project = registry.getProject(record.projectId)
  if (project === undefined) return undefined
  return { keyId: record.id, keyType: record.type, env: record.env, testMode: record.env === 'dev', project }
}

export function createAuthenticate(registry: AuthRegistry): Authenticate {
  return async (key) => authenticateKey(registry, key)
}
