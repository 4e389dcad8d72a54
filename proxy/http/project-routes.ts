// Project routes, served two ways with one handler: to the project's API keys at /api<path> (the
// key names the project; the auth plugin checks it), and to its organization's members at
// /api/projects/:projectId<path> on the auth listener (the bearer token names the member; the
// projectAccess service decides, and records what they changed).
import type { ProjectAccess, ProjectRouteSpec } from '../pipeline/plugin.ts'
import type { Route } from './routes.ts'

const MEMBER_PREFIX = '/api/projects/:projectId'

export function projectRoutes(specs: readonly ProjectRouteSpec[], access: ProjectAccess | undefined): Route[] {
  const routes: Route[] = []
  for (const spec of specs) {
    const common = { method: spec.method, stream: false, ...(spec.body === undefined ? {} : { body: spec.body }) }
    const docs = spec.docs ?? {}
    if (spec.keyTypes.length > 0) {
      routes.push({
        ...common,
        path: `/api${spec.path}`,
        name: spec.name,
        kind: 'keyed',
        keyTypes: spec.keyTypes,
        docs,
        handle: (ctx) => spec.handle(ctx, ctx.caller!.project),
      })
    }
    if (access !== undefined) {
      routes.push({
        ...common,
        path: `${MEMBER_PREFIX}${spec.path}`,
        name: `members_${spec.name}`,
        kind: 'open',
        keyTypes: [],
        listener: 'auth',
        docs: { ...docs, auth: 'accessToken' },
        async handle(ctx) {
          const grant = await access.authorize(ctx, ctx.params.projectId!, spec)
          const reply = await spec.handle(ctx, grant.project)
          const succeeded = reply.kind === 'json' && reply.status < 400
          if (spec.writes && succeeded) await grant.recordChange()
          return reply
        },
      })
    }
  }
  return routes
}
