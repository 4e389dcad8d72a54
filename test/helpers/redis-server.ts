// A real Redis server for the tests, on a free loopback port with nothing persisted, stopped with
// the test; stop() and start() take it away and bring it back on the same port. Debian's
// `redis-server` package provides it (.ci/run installs it); without it the tests that need it skip.
import type { Test } from 'tap'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../bench/free-port.ts'

/** The skip reason for tests that need Redis, or false when it is installed. */
export const REDIS_MISSING: string | false =
  spawnSync('redis-server', ['--version']).error === undefined ? false : 'Redis is not installed (Debian package redis-server; .ci/run installs it)'

export interface RedisServer {
  readonly url: string
  /** Stops the server; clients see their connection close. */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
}

export async function startRedis(t: Test): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined

  async function start(): Promise<void> {
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = server
    let log = ''
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8')
        if (log.includes('Ready to accept connections')) resolve()
      })
      server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${log}`)))
    })
  }

  async function stop(): Promise<void> {
    const server = child
    child = undefined
    if (server === undefined || server.exitCode !== null) return
    server.kill('SIGKILL')
    await once(server, 'exit')
  }

  await start()
  t.teardown(async () => {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  })
  return { url: `redis://127.0.0.1:${port}`, stop, start }
}
