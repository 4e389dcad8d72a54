// One assessment of a text set for a project: findings, custom-rule matches and the verdict.
// Memoized by content, verdict-relevant metadata and settings version.
import type { Histogram } from 'prom-client'
import type { GovernorMetadata } from '../../proxy/pipeline/ai-request.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import type { Project } from '../../proxy/pipeline/project.ts'
import type { Finding } from '../../workers/scan-content.ts'
import { scanTexts, type ScanLimits } from './scan-texts.ts'
import type { ProjectRules } from './project-rules.ts'
import { matchRules } from './logic/verdict/custom-rules.ts'
import { computeVerdict } from './logic/verdict/compute-verdict.ts'
import type { RuleMatch, Verdict } from './logic/verdict/types.ts'
import { VerdictMemo, verdictKey } from './verdict-memo.ts'

export interface Assessment {
  /** Findings per text, offsets into that text. */
  readonly findings: readonly (readonly Finding[])[]
  readonly ruleMatches: readonly RuleMatch[]
  readonly verdict: Verdict
}

interface AssessorDeps {
  readonly pool: WorkerPool
  readonly limits: ScanLimits
  readonly memoEntries: number
  readonly scanSeconds: Histogram<'where'>
  readonly rules: ProjectRules
}

export type Assess = (project: Project, metadata: GovernorMetadata, texts: readonly string[], signal: AbortSignal) => Promise<Assessment>

export function createAssessor(deps: AssessorDeps): Assess {
  const memo = new VerdictMemo<Assessment>(deps.memoEntries)

  return async (project, metadata, texts, signal) => {
    const key = verdictKey(project.id, project.governor.version, metadata, texts)
    const known = memo.get(key)
    if (known !== undefined) return known
    const started = performance.now()
    const scanned = await scanTexts(texts, deps.pool, deps.limits, signal)
    deps.scanSeconds.observe({ where: scanned.pooled > 0 ? 'pool' : 'inline' }, (performance.now() - started) / 1000)
    const ruleMatches = matchRules(deps.rules(project), texts)
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
