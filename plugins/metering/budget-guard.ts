// The budget's rules, one place for every request that may cost money (model routes and the
// provider pass-through alike): a request is admitted only if the month can cover its hold (the
// store decides, with every running request's hold counted), of its project's budget and, where
// its key has one of its own, of the key's, its charge never exceeds that hold
// (what the provider counted beyond it is recorded as overage), and the hold is given back once
// the charge counts.
import { Counter, type Registry } from 'prom-client'
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/kit/clock.ts'
import { BudgetExceededError } from './errors.ts'
import type { Project } from '../../proxy/pipeline/project.ts'
import { microsOfDollars } from '../../proxy/pipeline/price.ts'
import { durableRow, type Hold, type LedgerEntry } from './store/records.ts'
import type { BudgetRow } from './logic/budget.ts'
import type { ReserveResult } from './logic/admit.ts'
import { chargeFor, type Charge } from './logic/settle.ts'
import type { MeteringStore } from './store/index.ts'
import { monthKey } from './logic/periods.ts'

export interface BudgetGuard {
  /**
   * Holds `micros` of the project's month for the request (and of its key's, when `key` has a
   * budget), or the 402 to answer when a budget cannot cover them: at once where holds are kept
   * in memory, a promise where the store decides.
   */
  hold(requestId: string, project: Project, micros: number, key?: KeyOfRequest): Hold | BudgetExceededError | Promise<Hold | BudgetExceededError>
  /** The charge for `costMicros` counted by the provider; without a hold (budgets not enforced), all of it. */
  charge(costMicros: number, hold: Hold | undefined): Charge
  /**
   * Records `entry`, gives its hold back once the charge counts and then hands `use` the month's
   * row as the entry leaves it: once the settlement is journaled (with this turn's others), else
   * once committed.
   */
  settle<T>(entry: LedgerEntry, project: Project, hold: Hold | undefined, checkpointed: boolean, use: (row: BudgetRow) => T): T | Promise<T>
  /** Counts and logs an entry's overage (model and amount, no content). */
  noteOverage(entry: LedgerEntry, log: Logger): void
}

/** The request's key and its own monthly budget in dollars, if it has one. */
export interface KeyOfRequest {
  readonly keyId: string
  readonly keyBudgetDollars?: number | undefined
}

interface BudgetGuardDeps {
  readonly ledger: MeteringStore
  readonly clock: Clock
  readonly metrics: Registry
  readonly track: (work: Promise<unknown>) => void
}

export function createBudgetGuard({ ledger, clock, metrics, track }: BudgetGuardDeps): BudgetGuard {
  const refusals = new Counter({
    name: 'tollgate_budget_refusals_total',
    help: "Requests refused with 402 because a monthly budget (the project's or the key's) could not cover them.",
    registers: [metrics],
  })
  const overage = new Counter({
    name: 'tollgate_budget_overage_dollars_total',
    help: "Dollars a provider counted beyond the request's budget hold: recorded in the ledger, not charged.",
    labelNames: ['provider', 'model'],
    registers: [metrics],
  })
  return {
    hold(requestId, project, micros, key) {
      const keyBudget = key?.keyBudgetDollars
      const hold: { -readonly [K in keyof Hold]: Hold[K] } = { requestId, projectId: project.id, month: monthKey(clock.now()), micros }
      if (keyBudget !== undefined) hold.key = { keyId: key!.keyId, limitMicros: microsOfDollars(keyBudget) }
      const decided = (result: ReserveResult): Hold | BudgetExceededError => {
        if (result.ok) return hold
        refusals.inc()
        const [holder, limit] = result.byKey === true ? ['key', keyBudget] : ['project', project.budgetDollars]
        return new BudgetExceededError(
          `This request may cost up to $${(micros / 1e6).toFixed(6)}; the ${holder} has $${(result.availableMicros / 1e6).toFixed(6)} left of its $${limit} monthly budget.`,
        )
      }
      const result = ledger.reserve(hold, microsOfDollars(project.budgetDollars))
      return result instanceof Promise ? result.then(decided) : decided(result)
    },
    charge: (costMicros, hold) => chargeFor(costMicros, hold?.micros),
    settle(entry, project, hold, checkpointed, use) {
      const settled = ledger.settle(entry, microsOfDollars(project.budgetDollars), { hold, checkpointed })
      track(settled.committed)
      if (hold === undefined) return durableRow(settled, use)
      // A journaled charge counts in the ledger's rows at once: the hold can go.
      return durableRow(settled, (row) => {
        ledger.release(hold)
        return use(row)
      })
    },
    noteOverage(entry, log) {
      if (entry.overageMicros === undefined) return
      overage.inc({ provider: entry.provider, model: entry.model }, entry.overageMicros / 1e6)
      log.warn(
        { provider: entry.provider, model: entry.model, overageMicros: entry.overageMicros },
        'provider counted beyond the budget hold; the excess is recorded as overage, not charged',
      )
    },
  }
}
