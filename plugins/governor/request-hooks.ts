// The Governor on the AI routes: a verdict and an audit record for every request that carries
// governorMetadata (before the cache, so hits are governed too), strict-mode blocking, and the
// scan of the model's answer.
import type { Clock } from '../../proxy/clock.ts'
import { requestTexts } from '../../proxy/ai-request.ts'
import { answerTexts, type CompletionResult } from '../../proxy/completion.ts'
import { isStreamed, type AuthState, type RequestContext } from '../../proxy/context.ts'
import { GovernorBlockedError } from '../../proxy/errors.ts'
import { Reply } from '../../proxy/reply.ts'
import type { Assess } from './assess.ts'
import type { AuditTrail } from './audit/audit-trail.ts'
import { governorUnavailable } from './availability.ts'
import { governorHeaders } from './headers.ts'
import type { GovernorMetrics } from './metrics.ts'
import { answerDecision, buildAuditEntry, requestDecision, type GovernedCall } from './records/audit-entry.ts'
import type { GovernorDatabases } from './records/databases.ts'
import type { NewId } from './records/ids.ts'
import type { AuditKind, ModelEntry } from './records/types.ts'
import { isBlockingLevel } from './verdict/levels.ts'
import type { Verdict } from './verdict/types.ts'

export interface RequestHooksDeps {
  readonly assess: Assess
  readonly trail: AuditTrail
  readonly dbs: GovernorDatabases
  readonly newId: NewId
  readonly clock: Clock
  readonly metrics: GovernorMetrics
}

const blockedSummary = (verdict: Verdict) => verdict.violations.map((v) => ({ type: v.type, severity: v.severity }))

export function createRequestHooks(deps: RequestHooksDeps) {
  function callOf(ctx: RequestContext, auth: AuthState, kind: AuditKind, requestAuditId: string | null): GovernedCall {
    const route = ctx.state.router
    return {
      kind,
      at: new Date(deps.clock.now()).toISOString(),
      projectId: auth.project.id,
      keyId: auth.keyId,
      requestId: ctx.id,
      metadata: ctx.ai!.governorMetadata!,
      model: route === undefined ? null : { provider: route.provider, model: route.model },
      settingsVersion: auth.project.governor.version,
      requestAuditId,
    }
  }

  function registered(call: GovernedCall): ModelEntry | undefined {
    if (call.model === null) return undefined
    const id = deps.dbs.modelIndex.get([call.projectId, call.model.provider, call.model.model])
    return id === undefined ? undefined : deps.dbs.models.get([call.projectId, id])
  }

  /** The models registry entry for a model's first governed use in a project. */
  function firstUse(call: GovernedCall, known: ModelEntry | undefined): ModelEntry | undefined {
    if (call.model === null || known !== undefined) return undefined
    return {
      id: deps.newId('model'),
      projectId: call.projectId,
      provider: call.model.provider,
      model: call.model.model,
      riskClassification: 'unclassified',
      approvalStatus: 'pending',
      source: 'auto',
      notes: null,
      createdAt: call.at,
      updatedAt: call.at,
    }
  }

  return {
    async onRequest(ctx: RequestContext): Promise<Reply | undefined> {
      const metadata = ctx.ai?.governorMetadata
      const auth = ctx.state.auth
      if (metadata === undefined || auth === undefined) return undefined
      const refusal = governorUnavailable(auth.project)
      if (refusal !== undefined) return Reply.error(refusal)
      const { governor } = auth.project
      const assessment = await deps.assess(auth.project, metadata, requestTexts(ctx.ai!), ctx.signal)
      const { verdict } = assessment
      const call = callOf(ctx, auth, 'request', null)
      // A model the compliance officer rejected in the registry is refused whatever the score.
      const listed = registered(call)
      const rejected = listed?.approvalStatus === 'rejected'
      const blocked = rejected || (governor.strictMode && isBlockingLevel(verdict.level))
      const decision = requestDecision(verdict, blocked)
      const record = await deps.trail.append(buildAuditEntry(call, assessment, decision, deps.newId, firstUse(call, listed)))
      Object.assign(ctx.responseHeaders, governorHeaders(verdict, record.id))
      ctx.state.governor = {
        auditId: record.id, riskLevel: verdict.level, riskScore: verdict.score, approved: verdict.approved, blocked, violations: verdict.violations.length,
      }
      deps.metrics.countVerdict(verdict.level, decision)
      if (!blocked) return undefined
      if (rejected) {
        return Reply.error(new GovernorBlockedError(
          `The model ${call.model!.provider}/${call.model!.model} is rejected in this project's models registry; approve it there or send the request to another model. The audit record ${record.id} is kept.`,
          record.id, verdict.level, blockedSummary(verdict),
        ))
      }
      return Reply.error(new GovernorBlockedError(
        `Strict mode blocks high and critical risk; this request scored ${verdict.score} (${verdict.level}). The audit record ${record.id} lists the reasons.`,
        record.id, verdict.level, blockedSummary(verdict),
      ))
    },

    async onResult(ctx: RequestContext, result: CompletionResult): Promise<Reply | undefined> {
      const state = ctx.state.governor
      const auth = ctx.state.auth
      if (state === undefined || auth === undefined) return undefined
      const assessment = await deps.assess(auth.project, ctx.ai!.governorMetadata!, answerTexts(result), ctx.signal)
      const { verdict } = assessment
      // An answer that opens no violation (nothing, or only dates and links) adds nothing to the
      // trail: the request's record already stands for it.
      if (verdict.violations.length === 0) return undefined
      // A stream's status and text are already sent; only a JSON answer can still be withheld.
      const withheld = auth.project.governor.strictMode && verdict.criticalFinding && !isStreamed(ctx)
      const decision = answerDecision(verdict, withheld)
      const record = await deps.trail.append(buildAuditEntry(callOf(ctx, auth, 'output', state.auditId), assessment, decision, deps.newId, undefined))
      if (!withheld) return undefined
      Object.assign(ctx.responseHeaders, governorHeaders(verdict, record.id))
      const critical = verdict.violations.filter((v) => v.severity === 'CRITICAL').map((v) => v.category)
      return Reply.error(new GovernorBlockedError(
        `The model's answer was withheld: strict mode does not let out an answer with critical findings (${critical.join(', ')}). The audit record ${record.id} lists the reasons.`,
        record.id, verdict.level, blockedSummary(verdict),
      ))
    },
  }
}
