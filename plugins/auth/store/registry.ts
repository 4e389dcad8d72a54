// Projects and API keys: the one interface behind the request path, the CLI and the management
// API, stored in LMDB (lmdb.ts) or in PostgreSQL (postgres/registry.ts), both built from the
// records below.
import type { KeyObject } from 'node:crypto'
import { ulid } from 'ulid'
import type { KeyEnv, KeyType } from '../../../proxy/pipeline/context.ts'
import type { Plan, Project } from '../../../proxy/pipeline/project.ts'
import { DEFAULT_GOVERNOR_SETTINGS, type GovernorSettings } from '../../governor/state.ts'
import { displayPrefix, generateKey } from '../logic/key-format.ts'
import { hashKey } from '../logic/key-hash.ts'

export type KeyStatus = 'active' | 'inactive'

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

export type ProjectChanges = Partial<
  Pick<Project, 'organizationId' | 'name' | 'plan' | 'budgetDollars' | 'cacheTtlSeconds' | 'cacheEnabled' | 'cacheSampled'>
> & {
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
