// Whether the bench can start the shared stores of the `PostgreSQL + Redis` rows: Debian's
// `postgresql` package (initdb and postgres, on PATH or under /usr/lib/postgresql/<version>/bin),
// `redis-server`, and setpriv (util-linux), which ties both servers' lives to the bench's. Without them those rows are reported as skipped, never measured on
// something else.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The directory of initdb and postgres, or undefined when PostgreSQL is not installed. */
export function postgresBinaries(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim()
  if (onPath !== '') return join(onPath, '..')
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

const runs = (command: string, args: readonly string[]) => spawnSync(command, args, { stdio: 'ignore' }).error === undefined

/** Why the shared stores cannot be started here, or undefined when they can. */
export function sharedStoresMissing(): string | undefined {
  const missing = [
    ...(postgresBinaries() === undefined ? ['PostgreSQL (Debian package postgresql)'] : []),
    ...(runs('redis-server', ['--version']) ? [] : ['Redis (Debian package redis-server)']),
    ...(runs('setpriv', ['--version']) ? [] : ['setpriv (Debian package util-linux)']),
  ]
  return missing.length === 0 ? undefined : `skipped: ${missing.join(' and ')} not installed`
}
