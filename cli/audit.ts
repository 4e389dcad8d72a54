// `tollgate audit verify --project ID`: walks the project's audit chain, in PostgreSQL when
// DATABASE_URL is set (the chain every gateway on it appends to), else in the LMDB store. Exits 0
// when it is intact, 1 naming the first broken record (usage mistakes exit 2, like every command).
import pino from 'pino'
import { openDatabase } from '../proxy/stores/database.ts'
import { openStore } from '../proxy/stores/store.ts'
import { openAuditChain, verifyAuditChain, type ChainCheck } from '../plugins/governor/state.ts'
import { cliStoreOf, parseCliArgs } from './governor.ts'
import { printJson, UsageError } from './output.ts'
import type { CliStore } from './registry.ts'

const USAGE = 'usage: tollgate audit verify --project ID'

async function checkChain(where: CliStore, projectId: string): Promise<ChainCheck> {
  if (where.databaseUrl !== undefined) {
    const database = openDatabase(where.databaseUrl, pino({ level: 'silent' }), { maxConnections: 2 })
    try {
      return await verifyAuditChain(await openAuditChain({ database: database.forPlugin('governor') }), projectId)
    } finally {
      await database.close()
    }
  }
  const store = openStore(where.dataDir)
  try {
    return await verifyAuditChain(await openAuditChain({ store: store.forPlugin('governor') }), projectId)
  } finally {
    await store.close()
  }
}

export async function runAudit(argv: readonly string[]): Promise<void> {
  const { values, positionals } = parseCliArgs(argv, {
    data: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    project: { type: 'string' },
  })
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (positionals.length !== 1 || positionals[0] !== 'verify') throw new UsageError(USAGE)
  const projectId = values.project
  if (projectId === undefined || projectId === '') throw new UsageError('--project is required')
  const check = await checkChain(cliStoreOf(values.data), projectId)
  if (values.json === true) printJson({ project: projectId, ...check })
  else if (check.intact) process.stdout.write(`audit chain of ${projectId} is intact (${check.records} records)\n`)
  else process.stdout.write(`audit chain of ${projectId} is broken at ${check.brokenAt}: ${check.reason} (${check.records} records before it verified)\n`)
  if (!check.intact) process.exitCode = 1
}
