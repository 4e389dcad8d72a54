// What metering adds to the core's types (the services it provides) and what other plugins need of
// it: the 402 a hold refused answers with. What a request was charged it leaves in the core's
// ctx.charge, which the answer reports.
import type { UsageMeter } from './usage-service.ts'

export { BudgetExceededError } from './errors.ts'

declare module '../../proxy/pipeline/plugin.ts' {
  interface PluginServices {
    /** Budget holds and ledger entries for requests that skip the model call (the pass-through): metering's. */
    readonly usageMeter?: UsageMeter
  }
}
