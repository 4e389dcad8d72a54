// Projects and API keys in this host's LMDB. Key records are stored under the key's hash, so
// authenticating a request is a single read; a second database maps key ids to hashes for the
// lifecycle operations.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { decodedReads } from '../../../proxy/stores/decoded-reads.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { storedOnce } from '../../../proxy/stores/stored-once.ts'
import { KnownKeyHashes, hmacKey, sameHash } from '../logic/key-hash.ts'
import {
  changedProject,
  keyView,
  newKey,
  newProject,
  RegistryError,
  withCurrentFields,
  withKeyLimits,
  type AuthRegistry,
  type KeyRecord,
  type KeyView,
} from './registry.ts'

const SECRET_ENTRY = 'hmac-secret'
const CHANGES = 'projects-and-keys'
/** Key records and projects kept decoded: far more than one gateway serves at once. */
const HOT_RECORDS = 10_000

/** The server secret: from config when given, otherwise generated once and kept in the store. */
export async function loadSecret(store: PluginStore, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8')
  return Buffer.from(await storedOnce(store, SECRET_ENTRY, () => randomBytes(32).toString('base64')), 'base64')
}

export function createRegistry(store: PluginStore, secretBytes: Buffer, clock: Clock): AuthRegistry {
  const secret = hmacKey(secretBytes)
  const projects = store.open<Project>('projects', { records: true })
  const records = store.open<KeyRecord>('keys-by-hash', { records: true })
  const hashes = store.open<string>('key-ids')
  const lastUsed = store.open<string>('key-last-used')
  // Counts the writes of projects and keys by every process on the store, each in the transaction
  // of its write: one small read tells whether anything authenticated before may have changed.
  const changes = store.open<number>('changes')
  const changed = () => changes.put(CHANGES, (changes.get(CHANGES) ?? 0) + 1)
  const iso = () => new Date(clock.now()).toISOString()
  // Every authenticated request reads its key record and its project.
  const recordByHash = decodedReads(records, HOT_RECORDS)
  const projectById = decodedReads(projects, HOT_RECORDS)
  const knownHashes = new KnownKeyHashes(secret, HOT_RECORDS)

  const view = (record: KeyRecord): KeyView => keyView(record, lastUsed.get(record.id) ?? null)
  const recordOf = (id: string): KeyRecord => {
    const hash = hashes.get(id)
    const record = hash === undefined ? undefined : records.get(hash)
    if (record === undefined) throw new RegistryError(`no key with id ${id}`)
    return record
  }
  const projectOf = (id: string): Project => {
    const project = projects.get(id)
    if (project === undefined) throw new RegistryError(`no project with id ${id}`)
    return project
  }

  const findByKey = (key: string): KeyRecord | undefined => {
    const { hash, confirm } = knownHashes.lookup(key)
    const record = recordByHash(hash)
    // The lookup already selects by hash; the constant-time comparison keeps the final check
    // independent of how many leading bytes matched.
    if (record === undefined || !sameHash(record.hash, hash)) return undefined
    confirm()
    return record
  }

  return {
    async createProject(input) {
      const project = newProject(input, iso())
      await store.transaction(() => {
        projects.put(project.id, project)
        changed()
      })
      return project
    },
    getProject: (id) => withCurrentFields(projectById(id)),
    listProjects: () => [...projects.getRange().map(({ value }) => withCurrentFields(value))],
    async updateProject(id, changes) {
      return store.transaction(() => {
        const next = changedProject(projectOf(id), changes)
        projects.put(id, next)
        changed()
        return next
      })
    },
    async createKey(input) {
      projectOf(input.projectId)
      const { record, key } = newKey(secret, input, iso())
      await store.transaction(() => {
        records.put(record.hash, record)
        hashes.put(record.id, record.hash)
        changed()
      })
      return { record: view(record), key }
    },
    listKeys: (projectId) => [
      ...records
        .getRange()
        .filter(({ value }) => value.projectId === projectId)
        .map(({ value }) => view(value)),
    ],
    getKey(id) {
      const hash = hashes.get(id)
      const record = hash === undefined ? undefined : records.get(hash)
      return record === undefined ? undefined : view(record)
    },
    async setKeyStatus(id, status) {
      const next = await store.transaction(() => {
        const record = { ...recordOf(id), status }
        records.put(record.hash, record)
        changed()
        return record
      })
      return view(next)
    },
    async setKeyLimits(id, changes) {
      const next = await store.transaction(() => {
        const record = withKeyLimits(recordOf(id), changes)
        records.put(record.hash, record)
        changed()
        return record
      })
      return view(next)
    },
    async deleteKey(id) {
      await store.transaction(() => {
        const record = recordOf(id)
        records.remove(record.hash)
        hashes.remove(id)
        lastUsed.remove(id)
        changed()
      })
    },
    findByKey,
    generation: () => changes.get(CHANGES) ?? 0,
    // LMDB is shared by every process on the host: what findByKey read is already the truth.
    lookupKey: (key) => Promise.resolve(findByKey(key)),
    async touchKey(id) {
      await lastUsed.put(id, iso())
    },
    close: () => Promise.resolve(),
  }
}
