// PostgreSQL for the records several gateways share (DATABASE_URL). One pool per process; each
// plugin gets a handle that runs its own migrations and reaches only the tables it made. A
// database that cannot be reached fails a query within seconds, never hangs it.
import pg from 'pg'
import type { Logger } from 'pino'
import { DependencyUnavailableError, OverloadedError } from '../pipeline/errors.ts'
import { listen, type ListenHandlers, type Listener } from './database-listener.ts'

export interface Migration {
  /** 1, 2, 3…: applied in order, each once per database, whichever gateway starts first. */
  readonly version: number
  readonly sql: string
}

/** Runs a query; a client inside transaction(), or the pool outside one. */
export interface Sql {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>
}

export interface PluginDatabase extends Sql {
  /** Brings this plugin's tables to its latest version: once, in order, serialized across gateways. */
  migrate(migrations: readonly Migration[]): Promise<void>
  /** Runs fn in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>
  /** This plugin's notification channel: `SELECT pg_notify(channel, payload)` in a write's transaction reaches every gateway's listener at commit. */
  readonly channel: string
  /** Receives this plugin's notifications on a connection of its own, made again after a loss. */
  listen(handlers: ListenHandlers): Promise<Listener>
}

export interface Database {
  forPlugin(namespace: string): PluginDatabase
  /** False since a query or the heartbeat failed to reach the server, until one reaches it again. */
  isUp(): boolean
  /** Write transactions this process committed: transaction() calls and writing statements outside one. */
  commits(): number
  close(): Promise<void>
}

const CONNECT_TIMEOUT_MS = 2_000
const QUERY_TIMEOUT_MS = 10_000
const HEARTBEAT_MS = 2_000
// A statement outside a transaction commits on its own when it writes.
const WRITES = /^\s*(INSERT|UPDATE|DELETE)\b/i

export function openDatabase(url: string, log: Logger, options: { readonly maxConnections?: number } = {}): Database {
  const connections = options.maxConnections ?? 20
  const pool = new pg.Pool({
    connectionString: url,
    max: connections,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'tollgate',
  })
  let up = true
  let commits = 0
  // An idle connection the server dropped emits here; without a listener it would end the process.
  pool.on('error', (err) => {
    up = false
    log.warn({ err }, 'a PostgreSQL connection failed')
  })
  // The pool's connect timeout also runs while a request waits for a free connection, so a burst
  // would read as "the server is away". Requests wait for a connection here instead, and the
  // pool's timeout covers only making one.
  const inTurn = turns(connections, QUERY_TIMEOUT_MS)
  const observe = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      const result = await inTurn(work)
      up = true
      return result
    } catch (err) {
      if (!isUnreachable(err)) throw err
      up = false
      throw new DependencyUnavailableError('postgres', 1, { cause: err })
    }
  }
  const heartbeat = setInterval(() => {
    observe(() => pool.query('SELECT 1')).catch(() => undefined)
  }, HEARTBEAT_MS)
  heartbeat.unref()

  return {
    forPlugin(namespace) {
      const sql: Sql = {
        async query(text, values) {
          const result = await observe(() => pool.query(text, values as unknown[]))
          if (WRITES.test(text)) commits++
          return result
        },
      }
      const channel = `tollgate_${namespace.replaceAll('-', '_')}`
      return {
        ...sql,
        migrate: (migrations) => observe(() => migrate(pool, namespace, migrations)),
        async transaction(fn) {
          const result = await observe(() => inTransaction(pool, fn))
          commits++
          return result
        },
        channel,
        // Kept alive by TCP probes, so a server that vanished is noticed even with nothing to send.
        listen: (handlers) =>
          listen({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'tollgate', keepAlive: true }, channel, handlers, log),
      }
    },
    isUp: () => up,
    commits: () => commits,
    async close() {
      clearInterval(heartbeat)
      await pool.end()
    },
  }
}

/** At most `size` pieces of work at once; the others wait in order, for at most `waitMs`. */
function turns(size: number, waitMs: number): <T>(work: () => Promise<T>) => Promise<T> {
  let free = size
  const waiting: Array<() => void> = []
  return async (work) => {
    if (free > 0) free--
    else {
      await new Promise<void>((resolve, reject) => {
        const start = () => {
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(start), 1)
          reject(new OverloadedError('Every connection of this gateway to its database is busy; retry shortly.'))
        }, waitMs)
        waiting.push(start)
      })
    }
    try {
      return await work()
    } finally {
      const next = waiting.shift()
      if (next === undefined) free++
      else next()
    }
  }
}

async function inTransaction<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  // The pool stops listening to a client it lends: a connection lost between two statements of
  // the transaction would be an unhandled 'error' and end the process. Its next statement fails instead.
  const lost = (err: Error) => {
    broken = err
  }
  client.on('error', lost)
  try {
    await client.query('BEGIN')
    const result = await fn({ query: (text, values) => client.query(text, values as unknown[]) })
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback as Error
    })
    throw err
  } finally {
    client.off('error', lost)
    client.release(broken)
  }
}

// Every gateway runs the migrations as it starts; the advisory lock makes those that start
// together take turns, and the version table makes the later ones find the work done.
async function migrate(pool: pg.Pool, namespace: string, migrations: readonly Migration[]): Promise<void> {
  await inTransaction(pool, async (sql) => {
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('tollgate migrations'))`)
    await sql.query(
      'CREATE TABLE IF NOT EXISTS tollgate_migrations (plugin text NOT NULL, version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (plugin, version))',
    )
    const done = await sql.query<{ version: number }>('SELECT version FROM tollgate_migrations WHERE plugin = $1', [namespace])
    const applied = new Set(done.rows.map((row) => row.version))
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue
      await sql.query(migration.sql)
      await sql.query('INSERT INTO tollgate_migrations (plugin, version) VALUES ($1, $2)', [namespace, migration.version])
    }
  })
}

// Connection failures and timeouts say the server is away; anything else (a constraint, a
// syntax error) is the caller's to handle.
function isUnreachable(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return true
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|57P0[1-3]|08\d{3})$/.test(code)) return true
  const message = err instanceof Error ? err.message : ''
  return /timeout|Connection terminated|connection is closed|Client has encountered a connection error/i.test(message)
}
