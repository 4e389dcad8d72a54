// One assessment of a text set for a project: findings, custom-rule matches and the verdict.
// Memoized by content, verdict-relevant metadata and settings version; compiled rules are kept
// per project until its settings version changes.
import type { Histogram } from 'prom-client'
import type { Logger } from 'pino'
import type { GovernorMetadata } from '../../proxy/ai-request.ts'
import type { WorkerPool } from '../../proxy/pool.ts'
import type { Project } from '../../proxy/project.ts'
import type { Finding } from '../../workers/scan-content.ts'
import { scanTexts, type ScanLimits } from './scan-texts.ts'
import { compileRules, matchRules, type CompiledRule } from './verdict/custom-rules.ts'
import { computeVerdict } from './verdict/compute-verdict.ts'
import type { RuleMatch, Verdict } from './verdict/types.ts'
import { VerdictMemo, verdictKey } from './verdict-memo.ts'

export interface Assessment {
  /** Findings per text, offsets into that text. */
  readonly findings: readonly (readonly Finding[])[]
  readonly ruleMatches: readonly RuleMatch[]
  readonly verdict: Verdict
}

export interface AssessorDeps {
  readonly pool: WorkerPool
  readonly limits: ScanLimits
  readonly memoEntries: number
  readonly scanSeconds: Histogram<'where'>
  readonly log: Logger
}

export type Assess = (project: Project, metadata: GovernorMetadata, texts: readonly string[], signal: AbortSignal) => Promise<Assessment>

export function createAssessor(deps: AssessorDeps): Assess {
  const memo = new VerdictMemo<Assessment>(deps.memoEntries)
  const rulesByProject = new Map<string, { readonly version: number; readonly compiled: readonly CompiledRule[] }>()

  function rulesOf(project: Project): readonly CompiledRule[] {
    const cached = rulesByProject.get(project.id)
    if (cached !== undefined && cached.version === project.governor.version) return cached.compiled
    const { compiled, skipped } = compileRules(project.governor.customRules)
    // Rules are checked when saved; one that fails here was stored by other means. It is left out
    // rather than failing requests, and reported by id only.
    if (skipped.length > 0) deps.log.warn({ projectId: project.id, ruleIds: skipped }, 'custom rules left out: they do not pass the safety check')
    rulesByProject.set(project.id, { version: project.governor.version, compiled })
    return compiled
  }

  return async (project, metadata, texts, signal) => {
    const key = verdictKey(project.id, project.governor.version, metadata, texts)
    const known = memo.get(key)
    if (known !== undefined) return known
    const started = performance.now()
    const scanned = await scanTexts(texts, deps.pool, deps.limits, signal)
    deps.scanSeconds.observe({ where: scanned.pooled > 0 ? 'pool' : 'inline' }, (performance.now() - started) / 1000)
    const ruleMatches = matchRules(rulesOf(project), texts)
    const verdict = computeVerdict({
      actionType: metadata.actionType,
      senderRole: metadata.senderRole,
      department: metadata.department,
      recipientCountry: metadata.recipientCountry,
      findings: scanned.findings.flat(),
      ruleMatches,
      autoApproveThreshold: project.governor.autoApproveThreshold,
    })
    const assessment: Assessment = { findings: scanned.findings, ruleMatches, verdict }
    memo.set(key, assessment)
    return assessment
  }
}
