// The one LMDB environment of a gateway process. Plugins get a handle whose databases are
// namespaced by the plugin's name, so no plugin can open another's records.
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { open, type Database, type Key, type RootDatabase } from 'lmdb'
import { ConfigError } from '../config.ts'
import { groupCommit, type GroupCommit } from './group-commit.ts'

// How often a process commits its grouped writes at most.
const GROUP_WINDOW_MS = 10

interface DatabaseOptions {
  /** Keep decoded values in memory (for small, hot, rarely written records). */
  readonly cache?: boolean
  /**
   * Values are objects of a few fixed shapes: store each shape once (msgpack shared structures),
   * about twice as fast to encode and decode. The shapes live in one extra entry of the
   * database, which LMDB's raw entry count (getStats) includes.
   */
  readonly records?: boolean
}

export interface PluginStore {
  open<V>(name: string, options?: DatabaseOptions): Database<V, Key>
  /** Runs fn in one write transaction across this environment; all its puts commit together or not at all. */
  transaction<T>(fn: () => T): Promise<T>
  /**
   * Runs fn in the transaction of the next commit group (stores/group-commit.ts), with the other
   * writes of its window: for writes nothing waits for soon. A throw fails its own promise only: what
   * it wrote before throwing commits with the group, and so do the others.
   */
  grouped<T>(fn: () => T): Promise<T>
  /** A directory beside the environment for this plugin's own files (made by whoever writes there). */
  readonly directory: string
}

export interface Store {
  readonly root: RootDatabase
  forPlugin(namespace: string): PluginStore
  /** Resolves once every committed write is on disk. */
  flushed(): Promise<void>
  isOpen(): boolean
  /** Write transactions this process committed to the environment (LMDB batches a turn's writes into one). */
  commits(): number
  close(): Promise<void>
}

const STRUCTURES = Symbol.for('structures')

interface SharedRoot {
  readonly root: RootDatabase
  readonly groups: GroupCommit
  handles: number
  commits: number
}

// One environment per path in a process. LMDB forbids opening an environment twice in one
// process, and two handles deadlock: a database opened on the second (a synchronous write
// transaction on the main thread) waits for the write lock, which the first handle's writer holds
// while it waits for the main thread to run its transaction's callbacks.
const roots = new Map<string, SharedRoot>()

function openRoot(path: string): SharedRoot {
  const known = roots.get(path)
  if (known !== undefined) {
    known.handles++
    return known
  }
  try {
    mkdirSync(path, { recursive: true })
    // Several processes may share this environment; LMDB's own locks make that safe. The path is
    // always a directory: lmdb would otherwise take a name with a dot (`/var/lib/tollgate.d`) for a file.
    const root = open({ path, maxDbs: 64, compression: false, noSubdir: false })
    const shared: SharedRoot = { root, groups: groupCommit(root, GROUP_WINDOW_MS), handles: 1, commits: 0 }
    shared.root.on('aftercommit', () => {
      shared.commits++
    })
    roots.set(path, shared)
    return shared
  } catch (err) {
    throw dataDirError(err, path)
  }
}

export function openStore(dataDir: string): Store {
  const path = resolve(dataDir)
  const shared = openRoot(path)
  const root = shared.root
  let closed = false
  return {
    root,
    forPlugin(namespace) {
      return {
        open: <V>(name: string, options: DatabaseOptions = {}) =>
          root.openDB<V, Key>({
            name: `${namespace}/${name}`,
            cache: options.cache ?? false,
            ...(options.records === true ? { sharedStructuresKey: STRUCTURES } : {}),
          }),
        transaction: (fn) => root.transaction(fn),
        grouped: (fn) => shared.groups.run(fn),
        directory: join(path, namespace),
      }
    },
    async flushed() {
      await root.flushed
    },
    isOpen: () => !closed,
    commits: () => shared.commits,
    async close() {
      if (closed) return
      closed = true
      if (--shared.handles > 0) return
      roots.delete(path)
      await root.close()
    },
  }
}

/** The reasons the data directory cannot be opened that an operator fixes, said in one line. */
function dataDirError(err: unknown, path: string): unknown {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EEXIST') return new ConfigError(`the data directory ${path} is a file, not a directory (TOLLGATE_DATA)`)
  if (code === 'ENOTDIR') return new ConfigError(`the data directory ${path} cannot be made: part of that path is a file (TOLLGATE_DATA)`)
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new ConfigError(`the data directory ${path} is not writable by this process (TOLLGATE_DATA)`)
  return err
}
