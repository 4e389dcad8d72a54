// `tollgate audit verify --project ID`: walks the project's audit chain. Exits 0 when it is
// intact, 1 naming the first broken record (usage mistakes exit 2, like every command).
import { openStore } from '../proxy/store.ts'
import { verifyAuditChain } from '../plugins/governor/audit/verify-chain.ts'
import { cliStoreOf, parseCliArgs } from './governor.ts'
import { printJson, UsageError } from './output.ts'

const USAGE = 'usage: tollgate audit verify --project ID'

export async function runAudit(argv: readonly string[]): Promise<void> {
  const { values, positionals } = parseCliArgs(argv, {
    data: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, project: { type: 'string' },
  })
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (positionals.length !== 1 || positionals[0] !== 'verify') throw new UsageError(USAGE)
  const projectId = values.project
  if (projectId === undefined || projectId === '') throw new UsageError('--project is required')
  const store = openStore(cliStoreOf(values.data).dataDir)
  try {
    const check = verifyAuditChain(store.forPlugin('governor'), projectId)
    if (values.json === true) printJson({ project: projectId, ...check })
    else if (check.intact) process.stdout.write(`audit chain of ${projectId} is intact (${check.records} records)\n`)
    else process.stdout.write(`audit chain of ${projectId} is broken at ${check.brokenAt}: ${check.reason} (${check.records} records before it verified)\n`)
    if (!check.intact) process.exitCode = 1
  } finally {
    await store.close()
  }
}
