// The account routes' common shape: open routes (the API-key chain does not gate them; they
// authenticate bearer tokens themselves), served on the auth listener unless said otherwise.
import type { z } from 'zod'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import type { Reply } from '../../../proxy/http/reply.ts'
import type { RouteDocs } from '../../../proxy/http/route-docs.ts'

interface AccountRoute<S extends z.ZodType> {
  readonly method: RouteSpec['method']
  readonly path: string
  readonly name: string
  readonly listener?: 'main' | 'auth'
  /** Every accepted body has a schema, so it is validated before the handler and documented. */
  readonly body?: S
  readonly docs?: RouteDocs
  readonly documented?: boolean
  handle(ctx: RequestContext, body: z.output<S>): Promise<Reply>
}

export function accountRoute<S extends z.ZodType>(route: AccountRoute<S>): RouteSpec {
  const { handle, listener = 'auth', body, ...rest } = route
  return {
    ...rest,
    kind: 'open',
    listener,
    ...(body === undefined ? {} : { body }),
    handle: (ctx) => handle(ctx, ctx.body as z.output<S>),
  }
}
