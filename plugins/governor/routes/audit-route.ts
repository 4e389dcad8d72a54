// GET /api/compliance/audit/:auditId: one audit record of the project, and
// GET /api/compliance/audit/:auditId/verify: the check of the hash chain from the first record
// through that one.
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { verifyAuditChain } from '../store/verify-chain.ts'
import type { AuditChain, AuditTrail } from '../store/records.ts'
import type { AuditRecord } from '../store/types.ts'
import { auditAnswer, auditCheckAnswer } from './answers.ts'
import { PROJECT_KEYS } from './list-query.ts'

export function auditRoutes(trail: AuditTrail, chain: AuditChain): ProjectRouteSpec[] {
  const recordOf = async (ctx: RequestContext, project: Project): Promise<AuditRecord> => {
    const auditId = ctx.params.auditId!
    const record = await trail.get(project.id, auditId)
    if (record === undefined) throw new NotFoundError(`No audit record ${auditId} in this project.`)
    return record
  }
  return [
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/audit/:auditId',
      name: 'compliance_audit',
      docs: { response: auditAnswer },
      handle: async (ctx, project) => Reply.json(await recordOf(ctx, project)),
    },
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/audit/:auditId/verify',
      name: 'compliance_audit_verify',
      docs: { response: auditCheckAnswer },
      async handle(ctx, project) {
        const record = await recordOf(ctx, project)
        return Reply.json({ auditId: record.id, seq: record.seq, hash: record.hash, ...(await verifyAuditChain(chain, project.id, record.seq)) })
      },
    },
  ]
}
