// The project as the request path sees it: the plan that sets limits and features and the monthly
// budget. Stored and managed by the auth plugin. A plugin with per-project settings (the Governor,
// the cache) adds their fields to Project from its own state.ts, so their types live with it.

export const PLANS = ['free', 'pro', 'startup', 'growth', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

export interface Project {
  readonly id: string
  /** The organization that owns it; absent for projects an operator made with the CLI. */
  readonly organizationId?: string
  readonly name: string
  readonly plan: Plan
  readonly budgetDollars: number
  readonly createdAt: string
}
