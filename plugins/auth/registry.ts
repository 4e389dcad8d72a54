// Projects and API keys: the one interface behind the request path, the CLI and the management
// API, stored in LMDB here or in PostgreSQL (postgres-registry.ts), both built from the records
// below. In LMDB key records are stored under the key's hash, so authenticating a request is a
// single read; a second database maps key ids to hashes for the lifecycle operations.
import { randomBytes, type KeyObject } from 'node:crypto'
import { ulid } from 'ulid'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { KeyEnv, KeyType } from '../../proxy/pipeline/context.ts'
import type { Plan, Project } from '../../proxy/pipeline/project.ts'
import { DEFAULT_GOVERNOR_SETTINGS, type GovernorSettings } from '../governor/state.ts'
import { decodedReads } from '../../proxy/stores/decoded-reads.ts'
import type { PluginStore } from '../../proxy/stores/store.ts'
import { storedOnce } from '../../proxy/stores/stored-once.ts'
import { displayPrefix, generateKey } from './key-format.ts'
import { KnownKeyHashes, hashKey, hmacKey, sameHash } from './key-hash.ts'

type KeyStatus = 'active' | 'inactive'

/** A key's own limits, beside its project's: absent, only the project's apply. */
export interface KeyLimits {
  /** Dollars the key may spend per calendar month (UTC), within its project's budget. */
  readonly budgetDollars?: number
  /** Requests per minute the key may make, within its project's plan. */
  readonly rpm?: number
}

/** A change of a key's limits: a number sets one, null removes it, absent leaves it. */
export type KeyLimitChanges = { readonly [K in keyof KeyLimits]?: number | null }

export interface KeyRecord extends KeyLimits {
  readonly id: string
  readonly projectId: string
  readonly type: KeyType
  readonly env: KeyEnv | null
  readonly name: string
  readonly prefix: string
  readonly hash: string
  readonly status: KeyStatus
  readonly createdAt: string
}

/** What lists show: everything but the hash. */
export interface KeyView extends Omit<KeyRecord, 'hash'> {
  readonly lastUsedAt: string | null
}

interface NewProject {
  readonly organizationId?: string
  readonly name: string
  readonly plan: Plan
  readonly budgetDollars: number
}

export type ProjectChanges = Partial<Pick<Project, 'organizationId' | 'name' | 'plan' | 'budgetDollars' | 'cacheTtlSeconds' | 'cacheEnabled' | 'cacheSampled'>> & {
  readonly governor?: Partial<Omit<GovernorSettings, 'version'>>
}

interface NewKey extends KeyLimits {
  readonly projectId: string
  readonly type: KeyType
  readonly env: KeyEnv | null
  readonly name: string
}

export class RegistryError extends Error {}

export interface AuthRegistry {
  createProject(input: NewProject): Promise<Project>
  getProject(id: string): Project | undefined
  listProjects(): Project[]
  updateProject(id: string, changes: ProjectChanges): Promise<Project>
  /** The full key is returned here and never again. */
  createKey(input: NewKey): Promise<{ record: KeyView; key: string }>
  listKeys(projectId: string): KeyView[]
  getKey(id: string): KeyView | undefined
  setKeyStatus(id: string, status: KeyStatus): Promise<KeyView>
  setKeyLimits(id: string, changes: KeyLimitChanges): Promise<KeyView>
  deleteKey(id: string): Promise<void>
  /** The active-or-not record of a presented key, compared in constant time; undefined when unknown. */
  findByKey(key: string): KeyRecord | undefined
  /**
   * A value that changes whenever a project or key that findByKey and getProject answer from may
   * have changed, by any process: what was authenticated under one value holds while it lasts.
   */
  generation(): number
  /**
   * findByKey, made sure where the records are shared: a key this process does not know, or knows
   * as inactive, may have been made or reactivated by another gateway a moment ago. Its project
   * is then known too. Throws DependencyUnavailableError when the records cannot be reached, and
   * OverloadedError when too many keys are being looked up at once.
   */
  lookupKey(key: string): Promise<KeyRecord | undefined>
  touchKey(id: string): Promise<void>
  close(): Promise<void>
}

const SECRET_ENTRY = 'hmac-secret'
const CHANGES = 'projects-and-keys'
/** Key records and projects kept decoded: far more than one gateway serves at once. */
const HOT_RECORDS = 10_000

/** The server secret: from config when given, otherwise generated once and kept in the store. */
export async function loadSecret(store: PluginStore, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8')
  return Buffer.from(await storedOnce(store, SECRET_ENTRY, () => randomBytes(32).toString('base64')), 'base64')
}

/**
 * A project stored before a Governor setting existed reads with that setting's default, so the
 * request path never sees it undefined. Allocates only for such records.
 */
export function withCurrentFields<P extends Project | undefined>(project: P): P {
  if (project === undefined || project.governor.redactOutput !== undefined) return project
  return { ...project, governor: { ...DEFAULT_GOVERNOR_SETTINGS, ...project.governor } }
}

export function newProject(input: NewProject, createdAt: string): Project {
  return {
    id: `proj_${ulid().toLowerCase()}`,
    ...(input.organizationId === undefined ? {} : { organizationId: input.organizationId }),
    name: input.name,
    plan: input.plan,
    budgetDollars: input.budgetDollars,
    cacheTtlSeconds: 3600,
    cacheEnabled: true,
    cacheSampled: false,
    governor: DEFAULT_GOVERNOR_SETTINGS,
    createdAt,
  }
}

/** The project with the changes made; a change of the Governor settings bumps their version. */
export function changedProject(project: Project, changes: ProjectChanges): Project {
  const current = withCurrentFields(project)
  const { governor, ...rest } = changes
  return {
    ...current,
    ...rest,
    governor: governor === undefined ? current.governor : { ...current.governor, ...governor, version: current.governor.version + 1 },
  }
}

export function newKey(secret: KeyObject, input: NewKey, createdAt: string): { record: KeyRecord; key: string } {
  const key = generateKey(input.type, input.env)
  const record: KeyRecord = {
    id: `key_${ulid().toLowerCase()}`,
    projectId: input.projectId,
    type: input.type,
    env: input.env,
    name: input.name,
    prefix: displayPrefix(key),
    hash: hashKey(secret, key),
    status: 'active',
    createdAt,
    ...(input.budgetDollars === undefined ? {} : { budgetDollars: input.budgetDollars }),
    ...(input.rpm === undefined ? {} : { rpm: input.rpm }),
  }
  return { record, key }
}

/** The record with its limits changed. */
export function withKeyLimits(record: KeyRecord, changes: KeyLimitChanges): KeyRecord {
  const next: { -readonly [K in keyof KeyRecord]: KeyRecord[K] } = { ...record }
  for (const name of ['budgetDollars', 'rpm'] as const) {
    const change = changes[name]
    if (change === null) delete next[name]
    else if (change !== undefined) next[name] = change
  }
  return next
}

export function keyView(record: KeyRecord, lastUsedAt: string | null): KeyView {
  const { hash: _hash, ...rest } = record
  return { ...rest, lastUsedAt }
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
    listKeys: (projectId) => [...records.getRange().filter(({ value }) => value.projectId === projectId).map(({ value }) => view(value))],
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
