// What a forwarded request costs: its tokens at the model's list price, from the gateway's
// catalog (with the config's pricing overrides) or the pass-through's own price list, or the
// reason it cannot be known.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { priceOf as priceOfTokens } from '../../../proxy/pipeline/price.ts'
import { hasCounts, type SeenUsage } from './usage-fields.ts'

export interface Price {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

export type Cost = { readonly micros: number } | { readonly unknown: 'no_usage' | 'no_price' }

/** A dated snapshot (`gpt-4o-mini-2024-07-18`) is priced as its model. */
const DATE_SUFFIX = /-\d{4}-\d{2}-\d{2}$/

export function priceOf(model: string, catalog: ModelCatalog, extra: Readonly<Record<string, Price>>): Price | undefined {
  for (const name of [model, model.replace(DATE_SUFFIX, '')]) {
    // A name the catalog lets through unpriced has no price here either.
    if (catalog.has(name) && catalog.info(name).priced) return catalog.info(name)
    if (Object.hasOwn(extra, name)) return extra[name]
  }
  return undefined
}

export function costOf(seen: SeenUsage, catalog: ModelCatalog, extra: Readonly<Record<string, Price>>): Cost {
  if (!hasCounts(seen)) return { unknown: 'no_usage' }
  const price = seen.model === undefined ? undefined : priceOf(seen.model, catalog, extra)
  if (price === undefined) return { unknown: 'no_price' }
  return { micros: Math.round(priceOfTokens(price, { promptTokens: seen.promptTokens ?? 0, completionTokens: seen.completionTokens ?? 0 })) }
}
