// Metering for requests that do not go through the model call (the provider pass-through): a
// budget check before they are forwarded, and their ledger entry once the answer is over. Their
// cost is only known afterwards, so nothing is held: a project whose month is already spent (or
// held by requests still running) is refused, and anything else is recorded as it comes.
import { Counter, type Registry } from 'prom-client'
import type { Clock } from '../../proxy/clock.ts'
import { BudgetExceededError } from '../../proxy/errors.ts'
import type { Project } from '../../proxy/project.ts'
import { toMicros } from './ledger.ts'
import type { MeteringStore } from './metering-store.ts'
import { dayKey, monthKey } from './periods.ts'

/** A forwarded request's usage, as far as the answer told it. */
export interface ForwardedUsage {
  readonly requestId: string
  readonly project: Project
  readonly keyId: string
  readonly provider: string
  /** The model the answer named, or `unknown`. */
  readonly model: string
  readonly promptTokens: number
  readonly completionTokens: number
  /** The price of the tokens, or why it is not known (nothing is charged then). */
  readonly cost: { readonly micros: number } | { readonly unknown: 'no_usage' | 'no_price' }
  readonly outcome: string
}

export interface UsageMeter {
  /** The 402 to answer when the project's month is spent or held up to its budget; undefined to go ahead. */
  admit(project: Project): Promise<BudgetExceededError | undefined>
  /** Writes the ledger entry (and charges the budget); resolves once committed. */
  record(usage: ForwardedUsage): Promise<void>
}

export interface UsageMeterDeps {
  readonly ledger: MeteringStore
  readonly clock: Clock
  readonly metrics: Registry
  readonly enforceBudgets: boolean
  readonly track: (work: Promise<unknown>) => void
}

export function createUsageMeter({ ledger, clock, metrics, enforceBudgets, track }: UsageMeterDeps): UsageMeter {
  const unpriced = new Counter({
    name: 'tollgate_passthrough_unpriced_total',
    help: 'Pass-through requests recorded with an unknown cost (no usage in the answer, or a model without a price), by provider and reason.',
    labelNames: ['provider', 'reason'], registers: [metrics],
  })
  return {
    async admit(project) {
      if (!enforceBudgets) return undefined
      const month = monthKey(clock.now())
      const limitMicros = toMicros(project.budgetDollars)
      const claimed = await ledger.claimedMicros(project.id, month)
      if (claimed < limitMicros) return undefined
      track(ledger.limitExceeded(project.id, month, limitMicros, 0))
      return new BudgetExceededError(`The project has used its $${project.budgetDollars} monthly budget; this request is refused until the next month or a larger budget.`)
    },
    async record(usage) {
      const now = clock.now()
      const unknown = 'unknown' in usage.cost ? usage.cost.unknown : undefined
      if (unknown !== undefined) unpriced.inc({ provider: usage.provider, reason: unknown })
      await ledger.settle({
        id: usage.requestId, projectId: usage.project.id, keyId: usage.keyId, at: new Date(now).toISOString(),
        month: monthKey(now), day: dayKey(now), provider: usage.provider, model: usage.model,
        promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
        costMicros: 'micros' in usage.cost ? usage.cost.micros : 0, cacheHit: false, outcome: usage.outcome, passthrough: true,
        ...(unknown === undefined ? {} : { unpriced: unknown }),
      }, toMicros(usage.project.budgetDollars), { held: false, checkpointed: false }).committed
    },
  }
}
