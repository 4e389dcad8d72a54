// Configuration: an optional JSON file (TOLLGATE_CONFIG) overlaid by environment variables,
// validated once at boot by the core schema and each plugin's own schema. A bad value stops the
// process with a message naming the variable or path; nothing reads process.env after this.
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { buildCatalog, modelEntrySchema, priceOverrideSchema, unpricedModelsSchema, useCatalog } from './pipeline/catalog.ts'
import type { EnvVar, GatewayPlugin } from './pipeline/plugin.ts'

const port = z.number().int().min(0).max(65_535)

const coreSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: port.default(8080),
  /** Account endpoints on their own listener; absent: the main listener serves them. */
  authPort: port.optional(),
  /** /metrics on its own listener; absent: the main listener serves it. */
  metricsPort: port.optional(),
  dataDir: z.string().min(1).default('./data'),
  /** PostgreSQL for the durable records several gateways share; absent: LMDB in dataDir. */
  databaseUrl: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  /** Redis (or Valkey) for the hot state several gateways share: limits and the answer cache. */
  redisUrl: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  maxJsonDepth: z.number().int().min(4).max(1000).default(64),
  headersTimeoutMs: z.number().int().positive().default(10_000),
  requestTimeoutMs: z.number().int().positive().default(30_000),
  keepAliveTimeoutMs: z.number().int().positive().default(65_000),
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  /** A stream silent this long gets a keep-alive comment, and its status is sent if it was not yet; 0: never. */
  streamKeepAliveMs: z.number().int().nonnegative().default(15_000),
  pool: z
    .strictObject({
      maxThreads: z.number().int().min(1).max(64).default(2),
      maxQueue: z.number().int().min(1).default(512),
      idleTimeoutMs: z.number().int().nonnegative().default(60_000),
    })
    .default({ maxThreads: 2, maxQueue: 512, idleTimeoutMs: 60_000 }),
  /** OpenTelemetry traces: off unless an endpoint is set (see proxy/tracing.ts). */
  tracing: z
    .strictObject({
      endpoint: z.url({ protocol: /^https?$/, error: 'endpoint must be an http(s) URL' }).optional(),
      serviceName: z.string().min(1).default('tollgate'),
    })
    .default({ serviceName: 'tollgate' }),
  /** Models added to the shipped table, or replacing a shipped model of the same name (catalog.ts). */
  models: z.record(z.string().min(1), modelEntrySchema).default({}),
  /** List prices per model, replacing the table's model by model. */
  pricing: z.record(z.string().min(1), priceOverrideSchema).default({}),
  /** Other names for models of the table, beside the ones the providers document (models/models.json). */
  aliases: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Per provider, patterns of names the table does not list that are served anyway, unpriced. */
  unpricedModels: unpricedModelsSchema,
  /** Where each quality tier routes is the router's setting now; an old config is told where it went. */
  tiers: z.never({ error: 'tiers moved to plugins.router.tiers' }).optional(),
  plugins: z.record(z.string(), z.unknown()).default({}),
})

export type CoreConfig = z.output<typeof coreSchema>

/** The environment variables of the core's config; each plugin declares its own (GatewayPlugin.env). */
const CORE_ENV_VARS: readonly EnvVar[] = [
  ['HOST', ['host'], 'string'],
  ['PORT', ['port'], 'int'],
  ['AUTH_PORT', ['authPort'], 'int'],
  ['METRICS_PORT', ['metricsPort'], 'int'],
  ['TOLLGATE_DATA', ['dataDir'], 'string'],
  ['DATABASE_URL', ['databaseUrl'], 'string'],
  ['REDIS_URL', ['redisUrl'], 'string'],
  ['LOG_LEVEL', ['logLevel'], 'string'],
  ['BODY_LIMIT_BYTES', ['bodyLimitBytes'], 'int'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', ['tracing', 'endpoint'], 'string'],
  ['OTEL_SERVICE_NAME', ['tracing', 'serviceName'], 'string'],
]

/** Every environment variable the gateway reads, and where it lands in the config. */
function envVarsOf(plugins: readonly GatewayPlugin[]): readonly EnvVar[] {
  const vars = [
    ...CORE_ENV_VARS,
    ...plugins.flatMap((plugin) => (plugin.env ?? []).map(([name, path, kind]): EnvVar => [name, ['plugins', plugin.name, ...path], kind])),
  ]
  const seen = new Map<string, string>()
  for (const [name, path] of vars) {
    const other = seen.get(name)
    if (other !== undefined) throw new Error(`environment variable ${name} is declared for both ${other} and ${path.join('.')}`)
    seen.set(name, path.join('.'))
  }
  return vars
}

/** A setting the gateway cannot run with: a bad value, a port in use, a data directory that is a file. */
export class ConfigError extends Error {}

type Tree = Record<string, unknown>

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree
  for (const segment of path.slice(0, -1)) {
    const next = node[segment]
    node = typeof next === 'object' && next !== null ? (next as Tree) : (node[segment] = {})
  }
  node[path.at(-1)!] = value
}

function fromEnv(vars: readonly EnvVar[], env: NodeJS.ProcessEnv, base: Tree): Tree {
  for (const [name, path, kind] of vars) {
    const raw = env[name]
    if (raw === undefined || raw === '') continue
    if (kind === 'int') {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
      setPath(base, path, Number(raw))
    } else if (kind === 'bool') {
      if (!/^(?:1|0|true|false)$/i.test(raw)) throw new ConfigError(`${name} must be 1, 0, true or false, got "${raw}"`)
      setPath(base, path, /^(?:1|true)$/i.test(raw))
    } else {
      setPath(base, path, raw)
    }
  }
  return base
}

function readConfigFile(file: string): Tree {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`cannot read TOLLGATE_CONFIG file ${file}: ${(err as Error).message}`)
  }
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object')
    return parsed as Tree
  } catch (err) {
    throw new ConfigError(`TOLLGATE_CONFIG file ${file} is not a JSON object: ${(err as Error).message}`)
  }
}

/**
 * Each problem under the name the operator set it by: the environment variable when the value
 * came from one, the path in the config file otherwise.
 */
function describe(error: z.ZodError, prefix: string, fromEnvironment: ReadonlyMap<string, string>): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.')
      // A record key's own rule says what a key must look like; zod's wrapper says only "Invalid key in record".
      const message = issue.code === 'invalid_key' ? issue.issues.map((inner) => inner.message).join('; ') : issue.message
      return `${fromEnvironment.get(path) ?? path}: ${message}`
    })
    .join('; ')
}

/** Config paths whose value came from an environment variable (and no override replaced it), with the variable's name. */
function environmentSources(vars: readonly EnvVar[], env: NodeJS.ProcessEnv, overrides: Tree): Map<string, string> {
  const sources = new Map<string, string>()
  for (const [name, path] of vars) {
    if (env[name] !== undefined && env[name] !== '' && !hasPath(overrides, path)) sources.set(path.join('.'), name)
  }
  return sources
}

function hasPath(tree: Tree, path: readonly string[]): boolean {
  let node: unknown = tree
  for (const segment of path) {
    if (!isPlainObject(node) || !(segment in node)) return false
    node = node[segment]
  }
  return true
}

export interface GatewayConfig {
  readonly core: CoreConfig
  /** Each plugin's parsed config, keyed by plugin name. */
  readonly plugins: ReadonlyMap<string, unknown>
}

/**
 * Builds the config from a raw tree (file contents, overrides) and the environment. Plugins'
 * sections are parsed by their own schemas so their defaults and errors stay with them.
 */
export function loadConfig(plugins: readonly GatewayPlugin[], env: NodeJS.ProcessEnv = process.env, overrides: Tree = {}): GatewayConfig {
  const file = env.TOLLGATE_CONFIG
  const vars = envVarsOf(plugins)
  const tree = merge(fromEnv(vars, env, file ? readConfigFile(file) : {}), overrides)
  const sources = environmentSources(vars, env, overrides)
  const core = coreSchema.safeParse(tree)
  if (!core.success) throw new ConfigError(`invalid configuration: ${describe(core.error, '', sources)}`)
  // The model table is in force before the plugins' schemas read model names.
  const catalog = buildCatalog(core.data)
  if ('path' in catalog) throw new ConfigError(`invalid configuration: ${catalog.path}: ${catalog.message}`)
  useCatalog(catalog)
  const known = new Set<string>(plugins.map((p) => p.name))
  for (const name of Object.keys(core.data.plugins)) {
    if (!known.has(name)) throw new ConfigError(`invalid configuration: plugins.${name}: no such plugin (known: ${[...known].join(', ')})`)
  }
  const parsed = new Map<string, unknown>()
  for (const plugin of plugins) {
    const section = readSecretsFromEnv(core.data.plugins[plugin.name] ?? {}, env, `plugins.${plugin.name}`)
    const result = plugin.schema.safeParse(section)
    if (!result.success) throw new ConfigError(`invalid configuration: ${describe(result.error, `plugins.${plugin.name}`, sources)}`)
    parsed.set(plugin.name, result.data)
  }
  return { core: core.data, plugins: parsed }
}

const SECRET_REFERENCE = /^([a-z]\w*)Env$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * A copy of a plugin's section in which every `<setting>Env: "NAME"` (e.g. `apiKeyEnv`) has become
 * `<setting>` with the value of the environment variable NAME: secrets stay out of config files,
 * and a variable that is not set stops the gateway at start rather than at the first request.
 */
function readSecretsFromEnv(value: unknown, env: NodeJS.ProcessEnv, path: string): unknown {
  if (Array.isArray(value)) return value.map((item, i) => readSecretsFromEnv(item, env, `${path}.${i}`))
  if (!isPlainObject(value)) return value
  const out: Tree = {}
  for (const [key, item] of Object.entries(value)) {
    const setting = SECRET_REFERENCE.exec(key)?.[1]
    if (setting === undefined || typeof item !== 'string') {
      out[key] = readSecretsFromEnv(item, env, `${path}.${key}`)
      continue
    }
    if (!ENV_NAME.test(item)) throw new ConfigError(`invalid configuration: ${path}.${key}: must name an environment variable, got "${item}"`)
    if (setting in value) throw new ConfigError(`invalid configuration: ${path}.${key}: set either ${setting} or ${key}, not both`)
    const secret = env[item]
    if (secret === undefined || secret === '') throw new ConfigError(`invalid configuration: ${path}.${key}: environment variable ${item} is not set`)
    out[setting] = secret
  }
  return out
}

/** Deep merge of plain objects; `over` wins. */
function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? merge(current, value) : value
  }
  return out
}

function isPlainObject(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
