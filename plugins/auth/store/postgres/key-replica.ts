// The projects and keys of the shared database, held in memory by each gateway so the request path
// reads them without a round trip. It only holds what it is given: registry.ts reads the
// database and decides when.
import type { Project } from '../../../../proxy/pipeline/project.ts'
import { withCurrentFields, type KeyRecord } from '../registry.ts'

export class KeyReplica {
  readonly #projects = new Map<string, Project>()
  readonly #keysByHash = new Map<string, KeyRecord>()
  readonly #hashById = new Map<string, string>()
  readonly #lastUsed = new Map<string, string>()
  #version = 0

  /** Changes with every change of a project or key (not of last-used times). */
  get version(): number {
    return this.#version
  }

  replaceAll(projects: readonly Project[], keys: readonly KeyRecord[], lastUsed: ReadonlyArray<readonly [string, string]>): void {
    this.#projects.clear()
    this.#keysByHash.clear()
    this.#hashById.clear()
    this.#lastUsed.clear()
    this.#version++
    for (const project of projects) this.putProject(project)
    for (const key of keys) this.putKey(key)
    for (const [id, at] of lastUsed) this.#lastUsed.set(id, at)
  }

  putProject(project: Project): void {
    this.#version++
    this.#projects.set(project.id, withCurrentFields(project))
  }

  project(id: string): Project | undefined {
    return this.#projects.get(id)
  }

  /** In id order, as LMDB lists them: ids begin with their creation time. */
  projects(): Project[] {
    return [...this.#projects.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
  }

  putKey(record: KeyRecord): void {
    this.#version++
    this.#keysByHash.set(record.hash, record)
    this.#hashById.set(record.id, record.hash)
  }

  removeKey(id: string): void {
    this.#version++
    const hash = this.#hashById.get(id)
    if (hash !== undefined) this.#keysByHash.delete(hash)
    this.#hashById.delete(id)
    this.#lastUsed.delete(id)
  }

  keyByHash(hash: string): KeyRecord | undefined {
    return this.#keysByHash.get(hash)
  }

  key(id: string): KeyRecord | undefined {
    const hash = this.#hashById.get(id)
    return hash === undefined ? undefined : this.#keysByHash.get(hash)
  }

  keysOf(projectId: string): KeyRecord[] {
    return [...this.#keysByHash.values()].filter((record) => record.projectId === projectId).sort((a, b) => (a.hash < b.hash ? -1 : 1))
  }

  /** Gateways report uses out of order; the latest stays. ISO times of one format compare as text. */
  used(id: string, at: string): void {
    const known = this.#lastUsed.get(id)
    if (this.#hashById.has(id) && (known === undefined || known < at)) this.#lastUsed.set(id, at)
  }

  lastUsed(id: string): string | null {
    return this.#lastUsed.get(id) ?? null
  }
}
