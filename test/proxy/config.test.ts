// Config errors name the setting the way the operator set it: the environment variable when the
// value came from one, the path in the config file otherwise.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../proxy/config.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { freshDataDir } from '../helpers/start-gateway.ts'

const failure = (env: NodeJS.ProcessEnv, overrides: Record<string, unknown> = {}) => {
  try {
    loadConfig(builtinPlugins, env, overrides)
    return 'no error'
  } catch (err) {
    return err instanceof ConfigError ? err.message : `not a ConfigError: ${String(err)}`
  }
}

t.test('values from the environment are named by their variable', async (t) => {
  t.equal(failure({ PORT: 'abc' }), 'PORT must be a whole number, got "abc"')
  t.equal(failure({ BODY_LIMIT_BYTES: '-1' }), 'BODY_LIMIT_BYTES must be a whole number, got "-1"')
  t.equal(failure({ PORT: '70000' }), 'invalid configuration: PORT: Too big: expected number to be <=65535')
  t.equal(failure({ BODY_LIMIT_BYTES: '5' }), 'invalid configuration: BODY_LIMIT_BYTES: Too small: expected number to be >=1024')
  t.equal(
    failure({ LOG_LEVEL: 'loud' }),
    'invalid configuration: LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
  )
  t.equal(failure({ TOLLGATE_SECRET: 'short' }), 'invalid configuration: TOLLGATE_SECRET: secret must hold at least 32 characters', "in a plugin's section too")
  t.equal(failure({ OPENAI_BASE_URL: 'not a url' }), 'invalid configuration: OPENAI_BASE_URL: baseUrl must be an http(s) URL')
  t.equal(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), 'invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT: endpoint must be an http(s) URL')
  t.equal(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), 'no error', 'empty: tracing off')
})

t.test('each plugin declares its own environment variables, read only when it is among the plugins', async (t) => {
  const router = builtinPlugins.find((plugin) => plugin.name === 'router')!
  const withRouter = loadConfig([router], { OPENAI_API_KEY: 'sk-provider', SMTP_URL: 'not a url' })
  t.match(withRouter.plugins.get('router'), { providers: { openai: { apiKey: 'sk-provider' } } })
  t.equal(withRouter.plugins.has('accounts'), false, 'the variable of a plugin the gateway lacks is not read')
  const echo = { ...router, name: 'echo', order: 999 }
  t.throws(
    () => loadConfig([router, echo], {}),
    /environment variable OPENAI_BASE_URL is declared for both plugins\.router\.providers\.openai\.baseUrl and plugins\.echo\.providers\.openai\.baseUrl/,
  )
})

t.test('values from the config file, or replaced by an override, are named by their path', async (t) => {
  const file = join(freshDataDir(t), 'config.json')
  writeFileSync(file, JSON.stringify({ bodyLimitBytes: 5 }))
  t.equal(failure({ TOLLGATE_CONFIG: file }), 'invalid configuration: bodyLimitBytes: Too small: expected number to be >=1024')
  t.equal(failure({ PORT: '8080' }, { port: -1 }), 'invalid configuration: port: Too small: expected number to be >=0')
})

t.test("the model table's problems stop the start, named by their config path", async (t) => {
  const model = { provider: 'openai', contextWindow: 8000, inputPerMillion: 1, outputPerMillion: 2 }
  t.equal(failure({}, { models: { 'house-mini': model } }), 'no error')
  t.equal(
    failure({}, { models: { 'house-mini': { ...model, provider: 'acme' } } }),
    'invalid configuration: models.house-mini.provider: provider must be one of openai, anthropic, mistral',
  )
  t.match(failure({}, { models: { 'house-mini': { ...model, contextWindow: -1 } } }), /^invalid configuration: models\.house-mini\.contextWindow: /)
  t.match(failure({}, { models: { 'house-mini': { ...model, cost: 3 } } }), /^invalid configuration: models\.house-mini: Unrecognized key: "cost"/)
  t.equal(failure({}, { models: { cheap: model } }), "invalid configuration: models.cheap: a model may not take a tier's name")
  t.match(
    failure({}, { plugins: { router: { tiers: { cheap: 'house-maxi' } } } }),
    /^invalid configuration: plugins\.router\.tiers\.cheap: model must be one of /,
  )
  t.equal(
    failure({}, { tiers: { cheap: 'gpt-4o' } }),
    'invalid configuration: tiers: tiers moved to plugins.router.tiers',
    'an old config is told where the setting went',
  )
  t.match(failure({}, { pricing: { 'house-maxi': { inputPerMillion: 1, outputPerMillion: 1 } } }), /^invalid configuration: pricing\.house-maxi: no such model/)
  t.match(
    failure({}, { models: { 'house-mini': model }, plugins: { router: { fallback: { cheap: 'house-maxi' } } } }),
    /^invalid configuration: plugins\.router\.fallback\.cheap: model must be one of .*house-mini/,
  )
  t.equal(failure({}, { models: { 'house-mini': model }, plugins: { router: { tiers: { cheap: 'house-mini' }, fallback: { cheap: 'gpt-4o' } } } }), 'no error')
  // The table in force again: the built-ins.
  failure({})
})

t.test('a setting named <name>Env reads <name> from that environment variable, and stops the start when it is not set', async (t) => {
  const router = builtinPlugins.find((plugin) => plugin.name === 'router')!
  const deployments = (fields: Record<string, unknown>) => ({ plugins: { router: { providers: { openai: { deployments: [{ name: 'eu', ...fields }] } } } } })
  const loaded = loadConfig([router], { EU_KEY: 'sk-from-env' }, deployments({ apiKeyEnv: 'EU_KEY' }))
  t.match(loaded.plugins.get('router'), { providers: { openai: { deployments: [{ name: 'eu', apiKey: 'sk-from-env' }] } } })
  t.equal(
    failure({}, deployments({ apiKeyEnv: 'EU_KEY' })),
    'invalid configuration: plugins.router.providers.openai.deployments.0.apiKeyEnv: environment variable EU_KEY is not set',
  )
  t.equal(
    failure({ EU_KEY: 'k' }, deployments({ apiKeyEnv: 'EU_KEY', apiKey: 'k' })),
    'invalid configuration: plugins.router.providers.openai.deployments.0.apiKeyEnv: set either apiKey or apiKeyEnv, not both',
  )
  t.equal(
    failure({}, deployments({ apiKeyEnv: 'not a name' })),
    'invalid configuration: plugins.router.providers.openai.deployments.0.apiKeyEnv: must name an environment variable, got "not a name"',
  )
  t.equal(failure({ EU_KEY: 'k' }, { plugins: { router: { providers: { openai: { apiKeyEnv: 'EU_KEY' } } } } }), 'no error', 'the single key of a provider too')
})
