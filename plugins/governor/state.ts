// What the Governor adds to the core's types: its settings on every project, its state slot, how
// the slot shows on the request's log line, and the services it provides; and what other plugins
// and the CLI use of it.
import type { GovernorMetadata } from '../../proxy/pipeline/ai-request.ts'
import type { CompletedContext } from '../../proxy/pipeline/context.ts'
import type { Policies } from './policies.ts'

export { createPolicies, newRuleSchema, settingsChangesSchema, type Policies } from './policies.ts'
export { injectionBlockThreshold } from './logic/verdict/injection-block.ts'
export { openAuditChain } from './store/index.ts'
export { verifyAuditChain, type ChainCheck } from './store/verify-chain.ts'

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

export const DEFAULT_GOVERNOR_SETTINGS: GovernorSettings = {
  enabled: true,
  strictMode: false,
  redactOutput: false,
  autoApproveThreshold: 50,
  customRules: [],
  version: 1,
}

declare module '../../proxy/pipeline/project.ts' {
  interface Project {
    readonly governor: GovernorSettings
  }
}

export interface GovernorState {
  /** What the request was governed with: its governorMetadata, or what governed-metadata.ts implies for it. */
  readonly metadata: GovernorMetadata
  readonly auditId: string
  readonly riskLevel: 'low' | 'medium' | 'high' | 'critical'
  readonly riskScore: number
  readonly approved: boolean
  /** Strict mode stopped the request. */
  readonly blocked: boolean
  readonly violations: number
  /** The scan of the answer, once onAnswer has run. */
  readonly output?: {
    readonly riskLevel: 'low' | 'medium' | 'high' | 'critical'
    readonly violations: number
    /**
     * The text as sent holds no finding of HIGH or CRITICAL severity (none was found, or each was
     * redacted): it may be stored and replayed.
     */
    readonly storable: boolean
  }
}

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    governor?: GovernorState
  }
}

declare module '../../proxy/pipeline/plugin.ts' {
  interface PluginServices {
    /** The Governor's settings and custom rules: their one writer, which checks every rule before it is saved. */
    readonly policies?: Policies
  }
}

/** The verdict on the request, on a development key's line. */
export function governorLogFields(ctx: CompletedContext, verbose: boolean): Readonly<Record<string, unknown>> | undefined {
  const governor = ctx.state.governor
  return verbose && governor !== undefined ? { riskLevel: governor.riskLevel, blocked: governor.blocked } : undefined
}
