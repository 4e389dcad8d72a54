// Names the model table does not list that the config lets through to a provider, unpriced:
// `unpricedModels: { "openai": ["*"], "anthropic": ["claude-*"] }`. A name matches with its
// provider's prefix (`openai/gpt-4.5-preview`, sent upstream as `gpt-4.5-preview`) or without it;
// a name without a prefix goes to the first provider, in the order openai, anthropic, mistral,
// whose patterns match it. Pure: the config comes in, a matcher goes out.
import { z } from 'zod'
import type { ProviderName } from './models.ts'

const PROVIDERS: readonly ProviderName[] = ['openai', 'anthropic', 'mistral']

/**
 * What a provider's model ids are made of (fine-tuned ids have colons, some slashes). A name with
 * anything else is never let through: names reach the ledger, the logs and the answer's headers.
 */
const MODEL_ID = /^[A-Za-z0-9][\w.:@/+-]{0,127}$/

const patterns = z.array(z.string().regex(/^[\w.:@/+*-]{1,128}$/, 'a pattern is a model id in which * stands for any characters')).default([])

export const unpricedModelsSchema = z
  .strictObject({
    openai: patterns,
    anthropic: patterns,
    mistral: patterns,
  })
  .prefault({})

export type UnpricedModelsConfig = z.output<typeof unpricedModelsSchema>

interface UnpricedName {
  readonly provider: ProviderName
  readonly upstreamId: string
}

export interface UnpricedMatcher {
  /** The provider and upstream id of a name the config lets through, or undefined. */
  match(name: string): UnpricedName | undefined
  /** The patterns per provider, for the message that refuses a name; empty when none are configured. */
  readonly described: string
}

function regexOf(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+/]/g, '\\$&'))
      .join('.*')}$`,
  )
}

export function unpricedMatcher(config: UnpricedModelsConfig): UnpricedMatcher {
  const rules = PROVIDERS.flatMap((provider) =>
    config[provider].length === 0 ? [] : [{ provider, globs: config[provider], regexes: config[provider].map(regexOf) }],
  )
  const matching = (provider: ProviderName, id: string) => rules.some((rule) => rule.provider === provider && rule.regexes.some((regex) => regex.test(id)))
  return {
    match(name) {
      if (rules.length === 0 || !MODEL_ID.test(name)) return undefined
      const slash = name.indexOf('/')
      if (slash > 0) {
        const provider = name.slice(0, slash) as ProviderName
        const id = name.slice(slash + 1)
        if (PROVIDERS.includes(provider)) return id !== '' && matching(provider, id) ? { provider, upstreamId: id } : undefined
      }
      const rule = rules.find((candidate) => candidate.regexes.some((regex) => regex.test(name)))
      return rule === undefined ? undefined : { provider: rule.provider, upstreamId: name }
    },
    described: rules.map((rule) => `${rule.provider}: ${rule.globs.join(', ')}`).join('; '),
  }
}
