// The project as the request path sees it: the plan that sets limits and features, the monthly
// budget and the Governor settings. Stored and managed by the auth plugin.

export const PLANS = ['free', 'pro', 'startup', 'growth', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

export interface CustomRule {
  readonly id: string
  readonly name: string
  /** A case-insensitive keyword, or a regular expression source when `regex` is true. */
  readonly pattern: string
  readonly regex: boolean
  readonly weight: number
  readonly severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL'
}

export interface GovernorSettings {
  readonly enabled: boolean
  readonly strictMode: boolean
  /** Detected values in the model's answers are replaced by [REDACTED:TYPE] before they leave. */
  readonly redactOutput: boolean
  readonly autoApproveThreshold: number
  readonly customRules: readonly CustomRule[]
  /**
   * Strict mode blocks a prompt injection read with at least this confidence (0–1), whatever the
   * request's score; absent, the Governor's default (plugins/governor/logic/verdict/injection-block.ts).
   */
  readonly injectionBlockThreshold?: number
  /**
   * Which requests the Governor checks: those that carry governorMetadata (`metadata`, the default
   * when absent), or every request on the AI routes (`all`).
   */
  readonly governance?: 'metadata' | 'all'
  /** Bumped on every change, so verdicts and cache entries can be keyed by it. */
  readonly version: number
}

export interface Project {
  readonly id: string
  /** The organization that owns it; absent for projects an operator made with the CLI. */
  readonly organizationId?: string
  readonly name: string
  readonly plan: Plan
  readonly budgetDollars: number
  readonly cacheTtlSeconds: number
  readonly cacheEnabled: boolean
  /**
   * The cache also answers a client dialect's sampled requests (temperature above 0, no seed);
   * absent or false, only its deterministic ones. The spec's endpoints cache either way.
   */
  readonly cacheSampled?: boolean
  readonly governor: GovernorSettings
  readonly createdAt: string
}

export const DEFAULT_GOVERNOR_SETTINGS: GovernorSettings = {
  enabled: true,
  strictMode: false,
  redactOutput: false,
  autoApproveThreshold: 50,
  customRules: [],
  version: 1,
}
