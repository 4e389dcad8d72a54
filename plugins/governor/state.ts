// What the Governor adds to the core's types: its state slot, how the slot shows on the request's
// log line, and the services it provides.
import type { GovernorMetadata } from '../../proxy/pipeline/ai-request.ts'
import type { CompletedContext } from '../../proxy/pipeline/context.ts'
import type { Policies } from './policies.ts'

interface GovernorState {
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
