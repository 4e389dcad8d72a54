// Management routes: the caller is an authenticated member of an organization, and everything
// they name is looked up inside that organization only.
import type { z } from 'zod'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import type { Reply } from '../../../proxy/http/reply.ts'
import type { RouteDocs } from '../../../proxy/http/route-docs.ts'
import { authenticateMember } from './bearer.ts'
import type { Member } from '../logic/member.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from '../services.ts'

interface MemberRoute<S extends z.ZodType> {
  readonly method: RouteSpec['method']
  readonly path: string
  readonly name: string
  readonly body?: S
  readonly docs?: RouteDocs
  handle(ctx: RequestContext, member: Member, body: z.output<S>): Promise<Reply>
}

export function memberRoute<S extends z.ZodType>(services: AccountServices, route: MemberRoute<S>): RouteSpec {
  const { handle, docs, ...rest } = route
  return accountRoute({
    ...rest,
    docs: { ...docs, auth: 'accessToken' },
    handle: async (ctx, body) => handle(ctx, await authenticateMember(services, ctx.headers), body),
  })
}

export function actorOf(member: Member): { userId: string; email: string } {
  return { userId: member.user.id, email: member.user.email }
}
