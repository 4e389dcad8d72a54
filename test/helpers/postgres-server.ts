// A real PostgreSQL server for the tests: its own cluster in a temp directory, on a free loopback
// port, stopped with the test. Each test takes a fresh database of it. Debian's `postgresql`
// package provides the binaries (.ci/run installs it); without them the tests that need it skip.
import type { Test } from 'tap'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from '../../bench/free-port.ts'
import { postgresBinaries } from '../../bench/shared-stores.ts'

const BIN = postgresBinaries()

/** The skip reason for tests that need PostgreSQL, or false when it is installed. */
export const POSTGRES_MISSING: string | false = BIN === undefined ? 'PostgreSQL is not installed (Debian package postgresql; .ci/run installs it)' : false

export interface PostgresServer {
  readonly port: number
  /** A new, empty database on this server, dropped with the test; its postgres:// URL. */
  freshDatabase(t: Test): Promise<string>
  /** Stops the server (fast shutdown: open connections are cut). */
  stop(): Promise<void>
  /** Starts it again on the same port and data. */
  start(): Promise<void>
}

// PostgreSQL refuses to run as root; the package's own `postgres` user runs it then.
const asPostgres = (command: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]

let databases = 0

export async function startPostgres(t: Test): Promise<PostgresServer> {
  if (BIN === undefined) throw new Error(POSTGRES_MISSING as string)
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-'))
  if (process.getuid?.() === 0)
    chownSync(
      dir,
      Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout),
      Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout),
    )
  const data = join(dir, 'data')
  const [initdb, initArgs] = asPostgres(join(BIN, 'initdb'), ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const made = spawnSync(initdb, initArgs, { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`initdb failed: ${made.stderr}`)
  const port = await freePort()
  let child: ChildProcess | undefined

  async function start(): Promise<void> {
    const [command, args] = asPostgres(join(BIN!, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      // Durability of the test cluster itself is not under test; the gateway's use of it is.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ])
    const server = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    child = server
    let log = ''
    await new Promise<void>((resolve, reject) => {
      server.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8')
        if (log.includes('ready to accept connections')) resolve()
      })
      server.once('exit', (code) => reject(new Error(`postgres exited with ${code}: ${log}`)))
    })
  }

  async function stop(): Promise<void> {
    const server = child
    child = undefined
    if (server === undefined || server.exitCode !== null) return
    // The postmaster itself, not runuser (which does not pass signals on): SIGINT is a fast shutdown.
    const exited = once(server, 'exit')
    process.kill(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGINT')
    await exited
  }

  await start()
  t.teardown(async () => {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const admin = (database = 'postgres') => new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database })
  return {
    port,
    async freshDatabase(test) {
      const name = `tollgate_${process.pid}_${++databases}`
      const client = admin()
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      test.teardown(async () => {
        if (child === undefined) return
        const dropper = admin()
        await dropper.connect()
        try {
          await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        } finally {
          await dropper.end()
        }
      })
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    stop,
    start,
  }
}
