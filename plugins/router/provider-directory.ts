// Where each provider's API is and the gateway's own credential for it, for the plugins that call
// a provider's other endpoints as they are (the pass-through): one reading of the router's
// configuration, with the same base-URL rules as the model calls.
import type { ProviderName } from '../../proxy/pipeline/models.ts'
import { ANTHROPIC_API_VERSION } from './providers/anthropic.ts'
import { deploymentsOf } from './deployments.ts'
import { endpointOf } from './providers/endpoint.ts'
import type { RouterConfig } from './schema.ts'

interface ProviderTarget {
  /** `https://host[:port]`. */
  readonly origin: string
  /** The base URL's path prefix and `apiPath`, e.g. `/v1/embeddings`. */
  readonly path: string
  /** The gateway's credential, in the provider's header. */
  readonly credential: Readonly<Record<string, string>>
  /** Headers the provider requires, sent unless the client sent its own (Anthropic's `anthropic-version`). */
  readonly defaults: Readonly<Record<string, string>>
}

export interface ProviderDirectory {
  /**
   * The provider's endpoint at `apiPath` (starting with `/`, with the API's version, e.g.
   * `/v1/files`), or undefined when the gateway has no API key for it (or only Azure and
   * OpenAI-compatible deployments).
   */
  target(provider: ProviderName, apiPath: string): ProviderTarget | undefined
}

export function providerDirectory(config: RouterConfig): ProviderDirectory {
  return {
    target(provider, apiPath) {
      // The provider's own API: the first native deployment's address and key.
      const native = deploymentsOf(config, provider).find((deployment) => deployment.kind === 'native')
      if (native === undefined) return undefined
      const { apiKey } = native
      const baseUrl = native.baseUrl ?? config.providers[provider].baseUrl
      const { origin, path } = endpointOf(provider, baseUrl, apiPath, apiKey, {})
      return provider === 'anthropic'
        ? { origin, path, credential: { 'x-api-key': apiKey }, defaults: { 'anthropic-version': ANTHROPIC_API_VERSION } }
        : { origin, path, credential: { authorization: `Bearer ${apiKey}` }, defaults: {} }
    },
  }
}
