// Metering for requests that do not go through the model call (the provider pass-through): a
// budget hold before they are forwarded, a bound its caller computes from the request, and their
// ledger entry once the answer is over, charged what the answer reports but never above the hold.
// The hold is admitted and settled by the same rules as a model route's (budget-guard.ts).
import { Counter, type Registry } from 'prom-client'
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/kit/clock.ts'
import { BudgetExceededError } from './errors.ts'
import type { Project } from '../../proxy/pipeline/project.ts'
import type { BudgetGuard, KeyOfRequest } from './budget-guard.ts'
import type { Hold, LedgerEntry } from './store/records.ts'
import { dayKey, monthKey } from './logic/periods.ts'

/** A forwarded request's usage, as far as the answer told it. */
interface ForwardedUsage {
  readonly keyId: string
  readonly provider: string
  /** The model the answer named, or `unknown`. */
  readonly model: string
  readonly promptTokens: number
  readonly completionTokens: number
  /** The price of the tokens, or why it is not known (nothing is charged then). */
  readonly cost: { readonly micros: number } | { readonly unknown: 'no_usage' | 'no_price' }
  readonly outcome: string
  /** The request's x-gateway-tags, for spend by tag. */
  readonly tags?: readonly string[] | undefined
}

/** A forwarded request's place in its project's budget, from hold() to settle(). */
interface ForwardHold {
  readonly requestId: string
  readonly project: Project
  /** Undefined when budgets are not enforced: nothing is held, and the charge is not capped. */
  readonly held: Hold | undefined
}

export interface UsageMeter {
  /** Holds `micros` of the project's month (and of the key's own budget, if it has one) while the request runs, or the 402 to answer when a budget cannot cover them. */
  hold(requestId: string, project: Project, micros: number, key: KeyOfRequest): Promise<ForwardHold | BudgetExceededError>
  /**
   * Writes the ledger entry, charging what the answer reports up to the hold (beyond it, overage),
   * and gives the hold back; resolves once the charge counts. An unknown cost is charged nothing.
   */
  settle(hold: ForwardHold, usage: ForwardedUsage, log: Logger): Promise<void>
}

interface UsageMeterDeps {
  readonly guard: BudgetGuard
  readonly clock: Clock
  readonly metrics: Registry
  readonly enforceBudgets: boolean
}

export function createUsageMeter({ guard, clock, metrics, enforceBudgets }: UsageMeterDeps): UsageMeter {
  const unpriced = new Counter({
    name: 'tollgate_passthrough_unpriced_total',
    help: 'Pass-through requests recorded with an unknown cost (no usage in the answer, or a model without a price), by provider and reason.',
    labelNames: ['provider', 'reason'],
    registers: [metrics],
  })
  return {
    async hold(requestId, project, micros, key) {
      if (!enforceBudgets) return { requestId, project, held: undefined }
      const held = await guard.hold(requestId, project, micros, key)
      return held instanceof BudgetExceededError ? held : { requestId, project, held }
    },
    async settle({ requestId, project, held }, usage, log) {
      const now = clock.now()
      const unknown = 'unknown' in usage.cost ? usage.cost.unknown : undefined
      if (unknown !== undefined) unpriced.inc({ provider: usage.provider, reason: unknown })
      const entry: LedgerEntry = {
        id: requestId,
        projectId: project.id,
        keyId: usage.keyId,
        at: new Date(now).toISOString(),
        month: monthKey(now),
        day: dayKey(now),
        provider: usage.provider,
        model: usage.model,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        ...guard.charge('micros' in usage.cost ? usage.cost.micros : 0, held),
        cacheHit: false,
        outcome: usage.outcome,
        passthrough: true,
        ...(unknown === undefined ? {} : { unpriced: unknown }),
        ...(usage.tags === undefined ? {} : { tags: usage.tags }),
      }
      await guard.settle(entry, project, held, false, () => undefined)
      guard.noteOverage(entry, log)
    },
  }
}
