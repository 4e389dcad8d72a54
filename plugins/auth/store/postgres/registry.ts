// Projects and keys in PostgreSQL, for gateways on several hosts. Every gateway holds them all in
// memory (key-replica.ts), loaded at start and kept current by a notification that each write
// sends in its own transaction, so the request path reads them as fast as from LMDB. Two promises
// go beyond what the notifications give: a key made on another gateway is found in the database
// when it is first presented here (lookupKey), and the replica is read again whole after a lost
// connection, since notifications sent meanwhile never arrive.
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { Listener } from '../../../../proxy/stores/database-listener.ts'
import { OverloadedError } from '../../../../proxy/pipeline/errors.ts'
import type { Project } from '../../../../proxy/pipeline/project.ts'
import { KnownKeyHashes, hmacKey, sameHash } from '../../logic/key-hash.ts'
import { KeyReplica } from './key-replica.ts'
import { changedProject, keyView, newKey, newProject, RegistryError, withKeyLimits, type AuthRegistry, type KeyRecord } from '../registry.ts'

const SECRET_ENTRY = 'hmac-secret'
/** Hashes of keys already matched, remembered so a known key costs a plain SHA-256 (key-hash.ts). */
const KNOWN_HASHES = 10_000
const RELOAD_RETRY_MS = 1_000
/**
 * Keys looked up in the database at once, per gateway: a flood of made-up keys (refused before any
 * rate limit, which needs a known key) gets 503 beyond this instead of taking every connection.
 */
const MAX_LOOKUPS = 16

/** The server secret: from config when given, otherwise generated once and shared by every gateway. */
export async function loadSharedSecret(database: PluginDatabase, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8')
  // The first gateway's insert wins; the others' do nothing, and all read the winner's.
  await database.query('INSERT INTO auth_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [SECRET_ENTRY, randomBytes(32).toString('base64')])
  const { rows } = await database.query<{ value: string }>('SELECT value FROM auth_meta WHERE name = $1', [SECRET_ENTRY])
  return Buffer.from(rows[0]!.value, 'base64')
}

/** Runs `work` only while no project exists, once however many gateways start on an empty database together. */
export function whileEmpty<T>(database: PluginDatabase, work: () => Promise<T>): Promise<T | undefined> {
  return database.transaction(async (sql) => {
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('tollgate auth first start'))`)
    const { rows } = await sql.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM auth_projects) AS found')
    return rows[0]!.found ? undefined : work()
  })
}

interface PostgresRegistryOptions {
  /** Follow other gateways' writes; a one-shot command (the CLI) reads once and needs not. */
  readonly follow: boolean
  readonly log: Logger
}

type Change = `project:${string}` | `key:${string}` | `used:${string} ${string}`

export async function createPostgresRegistry(
  database: PluginDatabase,
  secretBytes: Buffer,
  clock: Clock,
  options: PostgresRegistryOptions,
): Promise<AuthRegistry> {
  const secret = hmacKey(secretBytes)
  const replica = new KeyReplica()
  const knownHashes = new KnownKeyHashes(secret, KNOWN_HASHES)
  const iso = () => new Date(clock.now()).toISOString()

  // Everything that reads the database into the replica runs one at a time, in order: a read
  // starts after the one before it was applied, so an older read never overwrites a newer one.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work)
    queue = run.catch(() => undefined)
    return run
  }

  const reloadAll = () =>
    serial(() =>
      database.transaction(async (sql) => {
        // One snapshot, so no key is read without the project it belongs to.
        await sql.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY')
        const projects = await sql.query<{ record: Project }>('SELECT record FROM auth_projects')
        const keys = await sql.query<{ record: KeyRecord }>('SELECT record FROM auth_keys')
        const used = await sql.query<{ id: string; at: Date }>('SELECT id, at FROM auth_key_last_used')
        replica.replaceAll(
          projects.rows.map((r) => r.record),
          keys.rows.map((r) => r.record),
          used.rows.map((r) => [r.id, r.at.toISOString()]),
        )
      }),
    )
  const refreshProject = (id: string) =>
    serial(async () => {
      const { rows } = await database.query<{ record: Project }>('SELECT record FROM auth_projects WHERE id = $1', [id])
      if (rows[0] !== undefined) replica.putProject(rows[0].record)
    })
  const refreshKey = (id: string) =>
    serial(async () => {
      const { rows } = await database.query<{ record: KeyRecord; project: Project }>(
        'SELECT k.record, p.record AS project FROM auth_keys k JOIN auth_projects p ON p.id = k.project_id WHERE k.id = $1',
        [id],
      )
      if (rows[0] === undefined) return replica.removeKey(id)
      replica.putProject(rows[0].project)
      replica.putKey(rows[0].record)
    })
  // A change that could not be read (the database was away for a moment, the pool was full) is
  // made good by reading everything again, retried until it succeeds.
  let recovering: NodeJS.Timeout | undefined
  let closed = false
  const recover = () => {
    if (recovering !== undefined || closed) return
    recovering = setTimeout(() => {
      reloadAll().then(
        () => {
          recovering = undefined
        },
        () => {
          recovering = undefined
          recover()
        },
      )
    }, RELOAD_RETRY_MS)
    recovering.unref()
  }
  const notify = (sql: Sql, change: Change) => sql.query('SELECT pg_notify($1, $2)', [database.channel, change])

  const onChange = (change: string) => {
    const [kind, rest = ''] = splitOnce(change, ':')
    if (kind === 'used') {
      const [id, at = ''] = splitOnce(rest, ' ')
      return replica.used(id, at)
    }
    const refresh = kind === 'project' ? refreshProject(rest) : kind === 'key' ? refreshKey(rest) : Promise.resolve()
    refresh.catch((err: unknown) => {
      options.log.warn({ err }, 'a change to projects or keys could not be read; reading them all again')
      recover()
    })
  }

  let listener: Listener | undefined
  if (options.follow) listener = await database.listen({ onNotification: onChange, onConnected: reloadAll })
  else await reloadAll()

  const findByKey = (key: string): KeyRecord | undefined => {
    const { hash, confirm } = knownHashes.lookup(key)
    const record = replica.keyByHash(hash)
    // Selected by hash already; the constant-time comparison keeps the last check independent of
    // how many leading bytes matched.
    if (record === undefined || !sameHash(record.hash, hash)) return undefined
    confirm()
    return record
  }
  // After a write has committed: its own gateway reads it back at once, so the caller sees it on
  // return. That read failing must not make a done write look failed; a full read makes it good.
  const readBack = (refresh: Promise<void>) => refresh.catch(recover)
  let lookups = 0

  return {
    async createProject(input) {
      const project = newProject(input, iso())
      await database.transaction(async (sql) => {
        await sql.query('INSERT INTO auth_projects (id, record) VALUES ($1, $2)', [project.id, project])
        await notify(sql, `project:${project.id}`)
      })
      await readBack(refreshProject(project.id))
      return project
    },
    getProject: (id) => replica.project(id),
    listProjects: () => replica.projects(),
    async updateProject(id, changes) {
      const next = await database.transaction(async (sql) => {
        // Locked, so changes made at once on two gateways apply one after the other.
        const { rows } = await sql.query<{ record: Project }>('SELECT record FROM auth_projects WHERE id = $1 FOR UPDATE', [id])
        if (rows[0] === undefined) throw new RegistryError(`no project with id ${id}`)
        const changed = changedProject(rows[0].record, changes)
        await sql.query('UPDATE auth_projects SET record = $2 WHERE id = $1', [id, changed])
        await notify(sql, `project:${id}`)
        return changed
      })
      await readBack(refreshProject(id))
      return next
    },
    async createKey(input) {
      const { record, key } = newKey(secret, input, iso())
      await database.transaction(async (sql) => {
        const { rowCount } = await sql.query(
          'INSERT INTO auth_keys (hash, id, project_id, record) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM auth_projects WHERE id = $3)',
          [record.hash, record.id, record.projectId, record],
        )
        if (rowCount === 0) throw new RegistryError(`no project with id ${input.projectId}`)
        await notify(sql, `key:${record.id}`)
      })
      await readBack(refreshKey(record.id))
      return { record: keyView(record, null), key }
    },
    listKeys: (projectId) => replica.keysOf(projectId).map((record) => keyView(record, replica.lastUsed(record.id))),
    getKey(id) {
      const record = replica.key(id)
      return record === undefined ? undefined : keyView(record, replica.lastUsed(id))
    },
    async setKeyStatus(id, status) {
      const record = await database.transaction(async (sql) => {
        const { rows } = await sql.query<{ record: KeyRecord }>(
          `UPDATE auth_keys SET record = record || jsonb_build_object('status', $2::text) WHERE id = $1 RETURNING record`,
          [id, status],
        )
        if (rows[0] === undefined) throw new RegistryError(`no key with id ${id}`)
        await notify(sql, `key:${id}`)
        return rows[0].record
      })
      await readBack(refreshKey(id))
      return keyView(record, replica.lastUsed(id))
    },
    async setKeyLimits(id, changes) {
      const record = await database.transaction(async (sql) => {
        const { rows } = await sql.query<{ record: KeyRecord }>('SELECT record FROM auth_keys WHERE id = $1 FOR UPDATE', [id])
        if (rows[0] === undefined) throw new RegistryError(`no key with id ${id}`)
        const next = withKeyLimits(rows[0].record, changes)
        await sql.query('UPDATE auth_keys SET record = $2 WHERE id = $1', [id, next])
        await notify(sql, `key:${id}`)
        return next
      })
      await readBack(refreshKey(id))
      return keyView(record, replica.lastUsed(id))
    },
    async deleteKey(id) {
      await database.transaction(async (sql) => {
        const { rowCount } = await sql.query('DELETE FROM auth_keys WHERE id = $1', [id])
        if (rowCount === 0) throw new RegistryError(`no key with id ${id}`)
        await notify(sql, `key:${id}`)
      })
      await readBack(refreshKey(id))
    },
    findByKey,
    generation: () => replica.version,
    async lookupKey(key) {
      const known = findByKey(key)
      if (known?.status === 'active' && replica.project(known.projectId) !== undefined) return known
      if (lookups >= MAX_LOOKUPS) throw new OverloadedError('Too many unknown API keys are being checked at once; retry shortly.')
      const { hash } = knownHashes.lookup(key)
      lookups++
      // Not queued: a made-up key costs one indexed read and never waits behind other work.
      const { rows } = await database.query<{ id: string }>('SELECT id FROM auth_keys WHERE hash = $1', [hash]).finally(() => {
        lookups--
      })
      if (rows[0] === undefined) return undefined
      await refreshKey(rows[0].id)
      return findByKey(key)
    },
    async touchKey(id) {
      const at = iso()
      replica.used(id, at)
      // Only a key that still exists; a later time than one already written by another gateway stays.
      await database.query(
        `
        WITH touched AS (
          INSERT INTO auth_key_last_used (id, at) SELECT id, $2::timestamptz FROM auth_keys WHERE id = $1
          ON CONFLICT (id) DO UPDATE SET at = GREATEST(auth_key_last_used.at, excluded.at) RETURNING id
        )
        SELECT pg_notify($3, 'used:' || id || ' ' || $4) FROM touched`,
        [id, at, database.channel, at],
      )
    },
    async close() {
      closed = true
      clearTimeout(recovering)
      await listener?.close()
      await queue
    },
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator)
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)]
}
