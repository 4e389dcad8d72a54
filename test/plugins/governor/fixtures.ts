// The real gateway with the Governor in its chain, a project with a gateway key (sk_) and a
// project key (pk_), the sensitive strings tests send, and the command line on the same store:
// LMDB, or the PostgreSQL database given as databaseUrl (DATABASE_URL).
import type { Test } from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { builtinPlugins } from '../../../plugins/index.ts'
import type { ProjectChanges } from '../../../plugins/auth/store/registry.ts'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { Plan } from '../../../proxy/pipeline/project.ts'
import { call, type JsonAnswer } from '../../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'

export const SENSITIVE = {
  email: 'ana.lopez@example.org',
  card: '4111 1111 1111 1111',
  secret: 'AKIAIOSFODNN7EXAMPLF',
} as const

export const metadata = { actionType: 'customer_support', senderId: 'agent-7' } as const

export interface GovernedGateway {
  readonly url: string
  readonly dataDir: string
  readonly databaseUrl: string | undefined
  readonly projectId: string
  readonly sk: string
  readonly pk: string
  /** Answers the AI routes with these messages' content and the default metadata, plus `extra`. */
  ask(route: 'complete' | 'chat', content: string, extra?: Record<string, unknown>): Promise<JsonAnswer>
}

export interface GovernedGatewayOptions {
  readonly plan?: Plan
  readonly changes?: ProjectChanges
  readonly env?: NodeJS.ProcessEnv
  readonly overrides?: Record<string, unknown>
  readonly clock?: Clock
  readonly dataDir?: string
  readonly plugins?: typeof builtinPlugins
  /** DATABASE_URL: the project is seeded there and the gateway keeps its shared records there. */
  readonly databaseUrl?: string | undefined
}

export async function governedGateway(t: Test, options: GovernedGatewayOptions = {}): Promise<GovernedGateway> {
  const dataDir = options.dataDir ?? freshDataDir(t)
  const seeded = await seedProject(
    dataDir,
    {
      ...(options.plan === undefined ? {} : { plan: options.plan }),
      ...(options.changes === undefined ? {} : { changes: options.changes }),
    },
    [
      { type: 'sk', env: 'prod' },
      { type: 'pk', env: 'prod' },
    ],
    options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl },
  )
  const { url } = await startTestGateway(t, {
    dataDir,
    plugins: options.plugins ?? builtinPlugins,
    env: { ...options.env, ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }) },
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  })
  const sk = seeded.keys[0]!.key
  return {
    url,
    dataDir,
    databaseUrl: options.databaseUrl,
    projectId: seeded.projectId,
    sk,
    pk: seeded.keys[1]!.key,
    ask: (route, content, extra = {}) =>
      call(`${url}/api/ai/${route}`, { key: sk, body: { messages: [{ role: 'user', content }], governorMetadata: metadata, ...extra } }),
  }
}

export function governorHeadersOf(answer: JsonAnswer): Record<string, string> {
  return Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('x-governor-')))
}

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `tollgate ARGS --data DIR` as its own process, as an operator would. */
export function tollgate(dataDir: string, ...args: string[]): Promise<CliResult> {
  return tollgateOn({ dataDir, databaseUrl: undefined }, ...args)
}

/** Runs `tollgate ARGS --data DIR` with the gateway's DATABASE_URL, when it has one. */
export async function tollgateOn(where: Pick<GovernedGateway, 'dataDir' | 'databaseUrl'>, ...args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOLLGATE_SECRET: TEST_SECRET }
  delete env.DATABASE_URL
  if (where.databaseUrl !== undefined) env.DATABASE_URL = where.databaseUrl
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--data', where.dataDir], { env })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as CliResult
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}
