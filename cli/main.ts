// The commands of the operator's command line (cli/tollgate.ts loads them).
import { ConfigError, loadConfig } from '../proxy/config.ts'
import { DependencyUnavailableError } from '../proxy/pipeline/errors.ts'
import { builtinPlugins } from '../plugins/index.ts'
import { runKeys, runOrganizations, runProjects } from './admin.ts'
import { runOutbox } from './outbox.ts'
import { runAudit } from './audit.ts'
import { runGovernor } from './governor.ts'
import { parseCommandLine } from './command-line.ts'
import { UsageError } from './output.ts'
import { RegistryError } from '../plugins/auth/store/registry.ts'
import { serve } from './serve.ts'

const HELP = `Usage: tollgate <command> [options]

Commands:
  serve [--workers N]                     run the gateway (what npm start runs); N processes share the port and store
  projects create --name NAME [--plan PLAN] [--budget DOLLARS] [--org ORG_ID]
  projects list
  projects attach ID --org ORG_ID         put a project (made here or at first start) in an organization's dashboard
  orgs list                               the organizations signed up in the dashboard, with their ids
  projects update ID [--plan PLAN] [--budget DOLLARS] [--name NAME]
  keys create --project ID --type sk|pk [--env dev|stg|prod] --name NAME [--budget DOLLARS] [--rpm N]
  keys list --project ID
  keys update KEY_ID [--budget DOLLARS|none] [--rpm N|none]
  keys deactivate|reactivate|delete KEY_ID
  outbox [--to EMAIL]                     mail kept locally when no SMTP_URL is set, links included
  governor settings --project ID [--enabled on|off] [--strict on|off] [--auto-approve N]
  governor rules add --project ID --name NAME --pattern TEXT [--regex] [--weight N] [--severity S]
  governor rules list --project ID
  governor rules remove --project ID RULE_ID
  audit verify --project ID               exit 0 when the audit chain is intact, 1 at its first broken record

Options:
  --data DIR   the store (default: TOLLGATE_DATA or ./data); with DATABASE_URL set, projects,
               keys and the outbox are in that PostgreSQL database, shared by every gateway on it
  --json       print JSON for scripts
  --help       this text

Plans: free, pro (alias startup), growth, enterprise. Budgets are US dollars per calendar month.
Every environment variable is listed in docs/configuration.md.`

function workerCount(value: string | undefined): number {
  if (value === undefined) return 1
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64) throw new UsageError('--workers must be a whole number from 1 to 64')
  return Number(value)
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === 'outbox') return runOutbox(argv.slice(1))
  if (argv[0] === 'governor') return runGovernor(argv.slice(1))
  if (argv[0] === 'audit') return runAudit(argv.slice(1))
  const { values, positionals } = parseCommandLine(argv)
  const [command, sub, ...args] = positionals
  if (values.help === true || command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`)
    return
  }
  const overrides = values.data === undefined ? {} : { dataDir: values.data }
  if (command === 'serve') return serve({ overrides }, workerCount(values.workers))
  const config = loadConfig(builtinPlugins, process.env, overrides)
  const authConfig = config.plugins.get('auth') as { secret?: string }
  const options = {
    dataDir: config.core.dataDir,
    databaseUrl: config.core.databaseUrl,
    secret: authConfig.secret,
    json: values.json === true,
    flags: {
      name: values.name,
      plan: values.plan,
      budget: values.budget,
      rpm: values.rpm,
      project: values.project,
      org: values.org,
      type: values.type,
      env: values.env,
    },
    args,
  }
  if (command === 'projects') return runProjects(sub, options)
  if (command === 'keys') return runKeys(sub, options)
  if (command === 'orgs') return runOrganizations(sub, options)
  throw new UsageError(`unknown command "${command}"; see tollgate --help`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const known =
    err instanceof UsageError ||
    err instanceof ConfigError ||
    err instanceof RegistryError ||
    (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
  const unreachable = err instanceof DependencyUnavailableError
  process.stderr.write(`tollgate: ${known || unreachable ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`)
  process.exit(known ? 2 : 1)
})
