// POST /api/ai/query: a question about the caller's own account, answered by a model that sees a
// summary of the caller's projects. It lives on the main listener and takes either a bearer
// access token (the organization's projects) or an API key (its organization's projects, or
// only its own project when it has no organization).
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { UnauthorizedError } from '../errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import { parseKey, presentedKey } from '../../auth/state.ts'
import { accountSummary } from './account-summary.ts'
import { bearerToken, memberOfToken } from './bearer.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from '../services.ts'
import { queryAnswer } from './answers.ts'

const MODEL = 'gpt-4o-mini'
const MAX_ANSWER_TOKENS = 500

const queryBody = z.strictObject({
  question: z
    .string({ error: 'question must be a string' })
    .trim()
    .min(1, 'question must not be empty')
    .max(2000, 'question must hold at most 2000 characters'),
})

interface Scope {
  readonly name: string
  readonly projects: readonly Project[]
}

export function queryRoute(services: AccountServices): RouteSpec {
  // The answer comes from the router's local model, the same simulated one that serves requests
  // when no provider is configured, with no network call.
  const { registry, authenticate, localModel } = services
  const projectsOf = (organizationId: string) => registry.listProjects().filter((p) => p.organizationId === organizationId)

  async function scopeOfKey(key: string): Promise<Scope> {
    const project = (await authenticate(key))?.project
    if (project === undefined) throw new UnauthorizedError('The API key is invalid or inactive.')
    const organization = project.organizationId === undefined ? undefined : await services.organizations.get(project.organizationId)
    return organization === undefined ? { name: project.name, projects: [project] } : { name: organization.name, projects: projectsOf(organization.id) }
  }

  async function scopeOf(headers: IncomingHttpHeaders): Promise<Scope> {
    const bearer = bearerToken(headers)
    // An API key may come in X-API-Key or, like on the gateway's routes, as the bearer token.
    if (headers['x-api-key'] !== undefined || (bearer !== undefined && parseKey(bearer) !== undefined)) {
      return scopeOfKey(presentedKey(headers) ?? '')
    }
    if (bearer === undefined) throw new UnauthorizedError('Send an access token in Authorization: Bearer, or an API key in X-API-Key.')
    const member = await memberOfToken(services, bearer)
    return { name: member.organization.name, projects: projectsOf(member.organization.id) }
  }

  return accountRoute({
    method: 'POST',
    path: '/api/ai/query',
    name: 'ai_query',
    listener: 'main',
    body: queryBody,
    docs: { response: queryAnswer, auth: 'accessTokenOrKey' },
    async handle(ctx, body) {
      const scope = await scopeOf(ctx.headers)
      const system =
        'You answer questions about one Tollgate account, using only the facts below. ' +
        'If they do not hold the answer, say so.\n\n' +
        accountSummary(registry, scope.name, scope.projects)
      const messages = [
        { role: 'system' as const, content: system },
        { role: 'user' as const, content: body.question },
      ]
      const promptTokens = countTokens(system) + countTokens(body.question)
      const result = await localModel.complete({ model: MODEL, messages, temperature: 0, maxTokens: MAX_ANSWER_TOKENS, mode: 'text', promptTokens }, ctx.signal)
      const completionTokens = result.usage?.completionTokens ?? countTokens(result.text)
      return Reply.json({
        answer: result.text,
        model: `local/${MODEL}`,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      })
    },
  })
}
