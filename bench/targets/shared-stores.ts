// Child entry: the PostgreSQL and Redis the `PostgreSQL + Redis` rows' gateways share, each on a
// free loopback port, with data in a temporary directory. PostgreSQL keeps its default durability
// (fsync and synchronous commit on) and Redis its default configuration apart from the port and
// the directory: the rows measure what a user runs. Both are started through setpriv with a
// parent-death signal, so they stop with this process even when it is killed outright; both
// inherit its CPU pinning. Reports the CPU both have used, every process of them, so a row can
// count it with the gateway's.
import { freePort } from '../free-port.ts'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { treeCpuMicros } from '../process-tree.ts'
import { postgresBinaries } from '../shared-stores.ts'
import { runChild } from './lifecycle.ts'

export interface SharedStoresInfo {
  readonly databaseUrl: string
  readonly redisUrl: string
  /** Both servers' data, removed when they stop. */
  readonly dataDir: string
}

const DATABASE = 'tollgate_bench'
const READY_TIMEOUT_MS = 60_000

// PostgreSQL refuses to run as root; the package's own `postgres` user runs it then.
const isRoot = process.getuid?.() === 0
const asStoreUser = isRoot ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : []

/** `command` exec'd by setpriv, so its PID is the server's and it gets `signal` when this process dies. */
function spawnTied(command: string, args: readonly string[], signal: 'INT' | 'TERM', user: readonly string[] = []): ChildProcess {
  return spawn('setpriv', [...user, '--pdeathsig', signal, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

function readyWhen(child: ChildProcess, stream: 'stdout' | 'stderr', line: string, what: string): Promise<void> {
  let log = ''
  let ready = false
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} was not ready within ${READY_TIMEOUT_MS} ms: ${log}`)), READY_TIMEOUT_MS)
    // Read to the end, so the server never blocks on a full pipe; keep only what comes before ready.
    child[stream]!.on('data', (chunk: Buffer) => {
      if (ready) return
      log += chunk.toString('utf8')
      if (log.includes(line)) {
        ready = true
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (!ready) reject(new Error(`${what} exited with ${code}: ${log}`))
    })
  })
}

async function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill(signal)
  await exited
}

await runChild<SharedStoresInfo>(async () => {
  const bin = postgresBinaries()
  if (bin === undefined) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-bench-stores-'))
  const pgDir = join(dir, 'postgres')
  const redisDir = join(dir, 'redis')
  mkdirSync(pgDir)
  mkdirSync(redisDir)
  // Each with the signal that stops it: a fast shutdown for PostgreSQL (SIGINT cuts open
  // connections), SIGTERM for Redis (it saves and exits).
  const started: Array<{ readonly child: ChildProcess; readonly signal: NodeJS.Signals }> = []
  const stopAll = async () => {
    await Promise.all(started.map(({ child, signal }) => stopped(child, signal)))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    if (isRoot) {
      // The postgres user must pass through the temporary directory to reach its own.
      chmodSync(dir, 0o711)
      const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout)
      chownSync(pgDir, id('-u'), id('-g'))
    }
    const data = join(pgDir, 'data')
    const made = spawnSync('setpriv', [...asStoreUser, join(bin, 'initdb'), '-D', data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8'], { encoding: 'utf8' })
    if (made.status !== 0) throw new Error(`initdb failed: ${made.stderr}${made.error?.message ?? ''}`)
    const [pgPort, redisPort] = [await freePort(), await freePort()]

    const postgres = spawnTied(join(bin, 'postgres'), ['-D', data, '-p', String(pgPort), '-k', pgDir, '-c', 'listen_addresses=127.0.0.1'], 'INT', asStoreUser)
    started.push({ child: postgres, signal: 'SIGINT' })
    await readyWhen(postgres, 'stderr', 'ready to accept connections', 'postgres')
    const redis = spawnTied('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir], 'TERM')
    started.push({ child: redis, signal: 'SIGTERM' })
    await readyWhen(redis, 'stdout', 'Ready to accept connections', 'redis-server')

    const admin = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', database: 'postgres' })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`)
    } finally {
      await admin.end()
    }
    const pids = started.map(({ child }) => child.pid!)
    return {
      info: { databaseUrl: `postgres://postgres@127.0.0.1:${pgPort}/${DATABASE}`, redisUrl: `redis://127.0.0.1:${redisPort}`, dataDir: dir },
      cpuMicros: () => treeCpuMicros(pids),
      stop: stopAll,
    }
  } catch (err) {
    await stopAll()
    throw err
  }
})
