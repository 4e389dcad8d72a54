// The passthrough config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default, the embedding models priced at their list prices', async (t) => {
  t.strictSame(pluginSection('passthrough'), {
    proxyTimeoutMs: 60_000,
    connectTimeoutMs: 5000,
    maxSockets: 128,
    scanLimitBytes: 1024 * 1024,
    prices: {
      'text-embedding-3-small': { inputPerMillion: 0.02, outputPerMillion: 0 },
      'text-embedding-3-large': { inputPerMillion: 0.13, outputPerMillion: 0 },
      'text-embedding-ada-002': { inputPerMillion: 0.1, outputPerMillion: 0 },
      'mistral-embed': { inputPerMillion: 0.1, outputPerMillion: 0 },
    },
    unboundedHoldDollars: 1,
    unboundedHoldByPath: {},
  })
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('passthrough', { proxyTimeoutMs: 0 }), /^invalid configuration: plugins\.passthrough\.proxyTimeoutMs: Too small/)
  t.match(
    pluginConfigError('passthrough', { prices: { 'my-model': { inputPerMillion: -1 } } }),
    /^invalid configuration: plugins\.passthrough\.prices\.my-model\.inputPerMillion: Too small/,
  )
  t.match(pluginConfigError('passthrough', { unboundedHoldDollars: 2_000_000 }), /^invalid configuration: plugins\.passthrough\.unboundedHoldDollars: Too big/)
  t.match(
    pluginConfigError('passthrough', { unboundedHoldByPath: { 'cohere/v1': 1 } }),
    /^invalid configuration: plugins\.passthrough\.unboundedHoldByPath\.cohere\/v1: a provider \(openai, anthropic, mistral\), then its path/,
  )
})
