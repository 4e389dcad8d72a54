// POST /api/governor/validate: the verdict on messages without a model call or a charge. It
// writes an audit record like a governed request; it opens no violations and raises no alerts,
// since nothing was sent.
import { z } from 'zod'
import type { Clock } from '../../../proxy/kit/clock.ts'
import { governorMetadataSchema, messageSchema } from '../../../proxy/pipeline/ai-request.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Assess } from '../assess.ts'
import type { AuditTrail } from '../store/records.ts'
import { governorUnavailable } from '../logic/availability.ts'
import { governorHeaders } from '../logic/headers.ts'
import { validateAnswer } from './answers.ts'
import type { GovernorMetrics } from '../metrics.ts'
import { buildAuditEntry, requestDecision } from '../logic/audit-entry.ts'
import type { NewId } from '../ids.ts'
import { strictBlock } from '../logic/verdict/strict-block.ts'

const MAX_MESSAGES = 1000

const validateBody = z.strictObject({
  messages: z
    .array(messageSchema, { error: 'messages must be an array of {role, content}' })
    .min(1, 'messages must hold at least one message')
    .max(MAX_MESSAGES, `messages may hold at most ${MAX_MESSAGES} messages`),
  governorMetadata: governorMetadataSchema,
})

interface ValidateDeps {
  readonly assess: Assess
  readonly trail: AuditTrail
  readonly newId: NewId
  readonly clock: Clock
  readonly metrics: GovernorMetrics
}

export function validateRoute(deps: ValidateDeps): RouteSpec {
  return {
    method: 'POST',
    path: '/api/governor/validate',
    name: 'governor_validate',
    kind: 'keyed',
    keyTypes: ['sk', 'pk'],
    body: validateBody,
    docs: { response: validateAnswer },
    async handle(ctx) {
      const auth = ctx.state.auth!
      const refusal = governorUnavailable(auth.project)
      if (refusal !== undefined) return Reply.error(refusal)
      const { messages, governorMetadata } = ctx.body as z.output<typeof validateBody>
      const assessment = await deps.assess(
        auth.project,
        governorMetadata,
        messages.map((m) => m.content),
        ctx.signal,
      )
      const { verdict } = assessment
      const decision = requestDecision(verdict, strictBlock(auth.project.governor, verdict, assessment.findings.flat()) !== undefined)
      const record = await deps.trail.append(
        buildAuditEntry(
          {
            kind: 'validate',
            at: new Date(deps.clock.now()).toISOString(),
            projectId: auth.project.id,
            keyId: auth.keyId,
            requestId: ctx.id,
            metadata: governorMetadata,
            model: null,
            settingsVersion: auth.project.governor.version,
            requestAuditId: null,
          },
          assessment,
          decision,
          deps.newId,
          undefined,
        ),
      )
      deps.metrics.countVerdict(verdict.level, decision)
      return Reply.json(
        {
          validated: true,
          approved: verdict.approved,
          decision,
          riskLevel: verdict.level,
          riskScore: verdict.score,
          violations: verdict.violations,
          findings: assessment.findings.flatMap((findings, messageIndex) =>
            findings.map(({ type, start, end, score }) => ({ type, start, end, score, messageIndex })),
          ),
          reasons: verdict.reasons,
          auditId: record.id,
        },
        200,
        governorHeaders(verdict, record.id),
      )
    },
  }
}
