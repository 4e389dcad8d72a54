// `tollgate governor settings …` and `tollgate governor rules …`: a project's Governor settings
// and custom rules, changed through the same registry and policies service the gateway uses, on
// the same store (cli/registry.ts).
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import { z } from 'zod'
import { loadConfig } from '../proxy/config.ts'
import { GatewayError } from '../proxy/pipeline/errors.ts'
import { builtinPlugins } from '../plugins/index.ts'
import type { AuthRegistry } from '../plugins/auth/state.ts'
import { createPolicies, injectionBlockThreshold, newRuleSchema, type GovernorSettings } from '../plugins/governor/state.ts'
import { printJson, printTable, UsageError } from './output.ts'
import { withRegistry, type CliStore } from './registry.ts'

const USAGE = `usage: tollgate governor settings --project ID [--enabled on|off] [--strict on|off] [--redact on|off] [--auto-approve N]
                                 [--injection-block 0..1] [--governance metadata|all]
       tollgate governor rules add --project ID --name NAME --pattern TEXT [--regex] [--weight N] [--severity LOW|MEDIUM|HIGH|CRITICAL]
       tollgate governor rules list --project ID
       tollgate governor rules remove --project ID RULE_ID`

/** The store directory, database and server secret, from --data, the environment and the config file, as `tollgate` resolves them. */
export function cliStoreOf(data: string | undefined): CliStore {
  const config = loadConfig(builtinPlugins, process.env, data === undefined ? {} : { dataDir: data })
  return { dataDir: config.core.dataDir, databaseUrl: config.core.databaseUrl, secret: (config.plugins.get('auth') as { secret?: string }).secret }
}

/** node:util's parseArgs, with its mistakes reported as usage errors. */
export function parseCliArgs<const O extends ParseArgsOptionsConfig>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, options })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

const onOff = (flag: string) => z.enum(['on', 'off'], { error: `--${flag} must be on or off` }).transform((value) => value === 'on')
const threshold = z.coerce
  .number({ error: '--auto-approve must be a number from 0 to 100' })
  .int('--auto-approve must be a whole number from 0 to 100')
  .min(0, '--auto-approve must be a whole number from 0 to 100')
  .max(100, '--auto-approve must be a whole number from 0 to 100')

const injectionBlock = z.coerce
  .number({ error: '--injection-block must be a number from 0 to 1' })
  .min(0, '--injection-block must be a number from 0 to 1')
  .max(1, '--injection-block must be a number from 0 to 1')
const governance = z.enum(['metadata', 'all'], { error: '--governance must be metadata or all' })

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value)
  if (!result.success) throw new UsageError(result.error.issues[0]!.message)
  return result.data
}

function settingsView(projectId: string, settings: GovernorSettings) {
  return {
    project: projectId,
    enabled: settings.enabled,
    strictMode: settings.strictMode,
    redactOutput: settings.redactOutput,
    autoApproveThreshold: settings.autoApproveThreshold,
    injectionBlockThreshold: injectionBlockThreshold(settings),
    governance: settings.governance ?? 'metadata',
    rules: settings.customRules.length,
    version: settings.version,
  }
}

export async function runGovernor(argv: readonly string[]): Promise<void> {
  const { values, positionals } = parseCliArgs(argv, {
    data: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    project: { type: 'string' },
    enabled: { type: 'string' },
    strict: { type: 'string' },
    redact: { type: 'string' },
    'auto-approve': { type: 'string' },
    'injection-block': { type: 'string' },
    governance: { type: 'string' },
    name: { type: 'string' },
    pattern: { type: 'string' },
    regex: { type: 'boolean' },
    weight: { type: 'string' },
    severity: { type: 'string' },
  })
  const [command, sub, ...rest] = positionals
  if (values.help === true || command === undefined) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const projectId = values.project
  if (projectId === undefined || projectId === '') throw new UsageError('--project is required')
  try {
    await withRegistry(cliStoreOf(values.data), async (registry) => {
      if (command === 'settings') await settings(registry, projectId, values, values.json === true)
      else if (command === 'rules') await rules(registry, projectId, sub, rest, values, values.json === true)
      else throw new UsageError(USAGE)
    })
  } catch (err) {
    // The policies service answers like the API; here its message is the whole story.
    throw err instanceof GatewayError ? new UsageError(err.message) : err
  }
}

type Flags = Readonly<Record<string, string | boolean | undefined>>

async function settings(registry: AuthRegistry, projectId: string, flags: Flags, json: boolean): Promise<void> {
  const changes: {
    -readonly [K in 'enabled' | 'strictMode' | 'redactOutput' | 'autoApproveThreshold' | 'injectionBlockThreshold' | 'governance']?: GovernorSettings[K]
  } = {}
  if (flags.enabled !== undefined) changes.enabled = parse(onOff('enabled'), flags.enabled)
  if (flags.strict !== undefined) changes.strictMode = parse(onOff('strict'), flags.strict)
  if (flags.redact !== undefined) changes.redactOutput = parse(onOff('redact'), flags.redact)
  if (flags['auto-approve'] !== undefined) changes.autoApproveThreshold = parse(threshold, flags['auto-approve'])
  if (flags['injection-block'] !== undefined) changes.injectionBlockThreshold = parse(injectionBlock, flags['injection-block'])
  if (flags.governance !== undefined) changes.governance = parse(governance, flags.governance)
  const current = registry.getProject(projectId)
  if (current === undefined) throw new UsageError(`no project with id ${projectId}`)
  const project = Object.keys(changes).length === 0 ? current : await createPolicies(registry).updateSettings(projectId, changes)
  const view = settingsView(project.id, project.governor)
  if (json) printJson(view)
  else
    printTable(
      [view],
      ['project', 'enabled', 'strictMode', 'redactOutput', 'autoApproveThreshold', 'injectionBlockThreshold', 'governance', 'rules', 'version'],
    )
}

async function rules(registry: AuthRegistry, projectId: string, sub: string | undefined, rest: readonly string[], flags: Flags, json: boolean): Promise<void> {
  const policies = createPolicies(registry)
  switch (sub) {
    case 'add': {
      const rule = await policies.create(
        projectId,
        parse(newRuleSchema, {
          name: flags.name,
          pattern: flags.pattern,
          regex: flags.regex === true,
          ...(flags.weight === undefined ? {} : { weight: parse(z.coerce.number({ error: '--weight must be a number' }), flags.weight) }),
          ...(flags.severity === undefined ? {} : { severity: flags.severity }),
        }),
      )
      if (json) printJson(rule)
      else process.stdout.write(`added rule ${rule.id} (${rule.regex ? 'regex' : 'keyword'}, weight ${rule.weight}, ${rule.severity})\n`)
      return
    }
    case 'list': {
      const list = policies.list(projectId)
      if (json) printJson(list)
      else
        printTable(
          list.map((r) => ({ ...r, type: r.regex ? 'regex' : 'keyword' })),
          ['id', 'name', 'type', 'pattern', 'weight', 'severity'],
        )
      return
    }
    case 'remove': {
      const ruleId = rest[0]
      if (ruleId === undefined) throw new UsageError('usage: tollgate governor rules remove --project ID RULE_ID')
      const removed = await policies.remove(projectId, ruleId)
      if (json) printJson({ id: removed.id, removed: true })
      else process.stdout.write(`removed rule ${removed.id}\n`)
      return
    }
    default:
      throw new UsageError(USAGE)
  }
}
