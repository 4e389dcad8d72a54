// Starts the real gateway on a free port with a fresh LMDB directory, and seeds projects and
// keys through the same registry the CLI uses, in LMDB or in a PostgreSQL database. Everything is
// torn down with the test.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { KeyEnv, KeyType } from '../../proxy/pipeline/context.ts'
import { start, type Gateway, type StartOptions } from '../../proxy/index.ts'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { Plan } from '../../proxy/pipeline/project.ts'
import type { ProjectChanges } from '../../plugins/auth/store/registry.ts'
import { withRegistry } from '../../cli/registry.ts'

export const TEST_SECRET = 'test-secret-of-at-least-thirty-two-characters'

export function freshDataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface SeedKey {
  readonly type: KeyType
  readonly env?: KeyEnv | null
  readonly name?: string
  readonly budgetDollars?: number
  readonly rpm?: number
}

export interface SeededProject {
  readonly projectId: string
  readonly keys: ReadonlyArray<{ readonly id: string; readonly key: string }>
}

/** `databaseUrl`: seed the registry of gateways started with that DATABASE_URL, instead of dataDir's. */
export async function seedProject(
  dataDir: string,
  project: { plan?: Plan; budgetDollars?: number; name?: string; changes?: ProjectChanges } = {},
  keys: readonly SeedKey[] = [{ type: 'sk', env: 'prod' }],
  where: { databaseUrl?: string } = {},
): Promise<SeededProject> {
  return withRegistry({ dataDir, databaseUrl: where.databaseUrl, secret: TEST_SECRET }, async (registry) => {
    let created = await registry.createProject({
      name: project.name ?? 'test',
      plan: project.plan ?? 'enterprise',
      budgetDollars: project.budgetDollars ?? 1000,
    })
    if (project.changes !== undefined) created = await registry.updateProject(created.id, project.changes)
    const made = []
    for (const key of keys) {
      const { record, key: value } = await registry.createKey({
        projectId: created.id,
        type: key.type,
        env: key.env ?? null,
        name: key.name ?? 'test key',
        ...(key.budgetDollars === undefined ? {} : { budgetDollars: key.budgetDollars }),
        ...(key.rpm === undefined ? {} : { rpm: key.rpm }),
      })
      made.push({ id: record.id, key: value })
    }
    return { projectId: created.id, keys: made }
  })
}

export interface GatewayUnderTest {
  readonly gateway: Gateway
  readonly url: string
  readonly dataDir: string
}

export interface StartTestGatewayOptions {
  readonly dataDir?: string
  readonly env?: NodeJS.ProcessEnv
  readonly overrides?: Record<string, unknown>
  readonly clock?: Clock
  readonly plugins?: StartOptions['plugins']
  readonly logDestination?: NodeJS.WritableStream
}

/** The gateway on port 0, silent logs, the local provider without delay unless the env says otherwise. */
export async function startTestGateway(t: Test, options: StartTestGatewayOptions = {}): Promise<GatewayUnderTest> {
  const dataDir = options.dataDir ?? freshDataDir(t)
  const gateway = await start({
    env: { LOCAL_CHUNK_DELAY_MS: '0', ...options.env },
    overrides: {
      port: 0,
      dataDir,
      logLevel: 'silent',
      shutdownGraceMs: 2000,
      ...options.overrides,
      plugins: { auth: { secret: TEST_SECRET, demoOnFirstStart: false }, ...(options.overrides?.plugins as object | undefined) },
    },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
  })
  t.teardown(() => gateway.close())
  return { gateway, url: gateway.url, dataDir }
}
