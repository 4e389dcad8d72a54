// The Governor on the AI routes: a verdict and an audit record for every request that carries
// governorMetadata, or for every request under governance "all" (governed-metadata.ts), before
// the cache, so hits are governed too; strict-mode blocking, and the checks of the model's answer
// (answer-hooks.ts).
import type { GovernorMetadata } from '../../proxy/pipeline/ai-request.ts'
import type { Clock } from '../../proxy/kit/clock.ts'
import { isStreamed, type RequestContext } from '../../proxy/pipeline/context.ts'
import type { AuthState } from '../auth/state.ts'
import { GovernorBlockedError } from './errors.ts'
import { Reply } from '../../proxy/http/reply.ts'
import type { Assess } from './assess.ts'
import { governorUnavailable } from './logic/availability.ts'
import { governedMetadata } from './logic/governed-metadata.ts'
import { governorHeaders, OUTPUT_HEADERS } from './logic/headers.ts'
import type { GovernorMetrics } from './metrics.ts'
import { buildAuditEntry, requestDecision, type GovernedCall } from './logic/audit-entry.ts'
import type { AuditTrail, ModelsRegistry } from './store/records.ts'
import type { NewId } from './ids.ts'
import type { AuditKind, ModelEntry } from './store/types.ts'
import { requestScanViews } from './logic/request-views.ts'
import { findingsInRaw } from './logic/stream/json-scan-view.ts'
import { injectionBlockThreshold } from './logic/verdict/injection-block.ts'
import { strictBlock } from './logic/verdict/strict-block.ts'
import type { Verdict } from './logic/verdict/types.ts'

export interface RequestHooksDeps {
  readonly assess: Assess
  readonly trail: AuditTrail
  readonly models: ModelsRegistry
  readonly newId: NewId
  readonly clock: Clock
  readonly metrics: GovernorMetrics
}

export const blockedSummary = (verdict: Verdict) => verdict.violations.map((v) => ({ type: v.type, severity: v.severity }))

/** The facts every audit record of a governed request repeats. */
export function governedCall(
  ctx: RequestContext,
  auth: AuthState,
  metadata: GovernorMetadata,
  kind: AuditKind,
  requestAuditId: string | null,
  clock: Clock,
): GovernedCall {
  const route = ctx.state.router
  return {
    kind,
    at: new Date(clock.now()).toISOString(),
    projectId: auth.project.id,
    keyId: auth.keyId,
    requestId: ctx.id,
    metadata,
    model: route === undefined ? null : { provider: route.provider, model: route.model },
    settingsVersion: auth.project.governor.version,
    requestAuditId,
  }
}

export function createRequestHooks(deps: RequestHooksDeps) {
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

  /** The verdict and the audit record of a governed request; its refusal when it is blocked. */
  async function govern(ctx: RequestContext, auth: AuthState, metadata: GovernorMetadata): Promise<Reply | undefined> {
    const refusal = governorUnavailable(auth.project)
    if (refusal !== undefined) return Reply.error(refusal)
    const { governor } = auth.project
    const views = requestScanViews(ctx.ai!)
    const route = ctx.state.router
    // The registry is read while the request is scanned, so a shared store's round trip adds no wait.
    const [scanned, listed] = await Promise.all([
      deps.assess(
        auth.project,
        metadata,
        views.map((view) => view.text),
        ctx.signal,
      ),
      route === undefined ? undefined : deps.models.registered(auth.project.id, route.provider, route.model),
    ])
    // The record places findings in the texts as the client sent them.
    const assessment = { ...scanned, findings: scanned.findings.map((found, i) => findingsInRaw(found, views[i]!)) }
    const { verdict } = assessment
    const call = governedCall(ctx, auth, metadata, 'request', null, deps.clock)
    // A model the compliance officer rejected in the registry is refused whatever the score.
    const rejected = listed?.approvalStatus === 'rejected'
    const strict = strictBlock(governor, verdict, scanned.findings.flat())
    const blocked = rejected || strict !== undefined
    const decision = requestDecision(verdict, blocked)
    const record = await deps.trail.append(buildAuditEntry(call, assessment, decision, deps.newId, firstUse(call, listed)))
    Object.assign(ctx.responseHeaders, governorHeaders(verdict, record.id))
    ctx.state.governor = {
      metadata,
      auditId: record.id,
      riskLevel: verdict.level,
      riskScore: verdict.score,
      approved: verdict.approved,
      blocked,
      violations: verdict.violations.length,
    }
    deps.metrics.countVerdict(verdict.level, decision)
    if (!blocked) {
      // The answer's own findings are known only at its end: a stream sends them as trailers.
      if (isStreamed(ctx)) ctx.trailerNames.push(...OUTPUT_HEADERS)
      return undefined
    }
    if (rejected) {
      return Reply.error(
        new GovernorBlockedError(
          `The model ${call.model!.provider}/${call.model!.model} is rejected in this project's models registry; approve it there or send the request to another model. The audit record ${record.id} is kept.`,
          record.id,
          verdict.level,
          blockedSummary(verdict),
        ),
      )
    }
    const why =
      strict === 'injection'
        ? `Strict mode blocks a prompt injection read with a confidence of ${injectionBlockThreshold(governor)} or more; this request holds one (it scored ${verdict.score}, ${verdict.level}).`
        : `Strict mode blocks high and critical risk; this request scored ${verdict.score} (${verdict.level}).`
    return Reply.error(new GovernorBlockedError(`${why} The audit record ${record.id} lists the reasons.`, record.id, verdict.level, blockedSummary(verdict)))
  }

  return {
    // Not async: most requests are not governed, and an async hook costs them a promise and a
    // suspended frame for nothing.
    onRequest(ctx: RequestContext): Promise<Reply | undefined> | undefined {
      const auth = ctx.state.auth
      if (auth === undefined) return undefined
      const metadata = governedMetadata(ctx.ai, ctx.route, auth.project, auth.keyId)
      if (metadata === undefined) return undefined
      return govern(ctx, auth, metadata)
    },
  }
}
