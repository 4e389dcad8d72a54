// The routing table: static paths in a map, `:param` paths matched segment by segment, the most
// literal first, and last the paths ending in `/*`, which take any non-empty rest of the path
// (the longest prefix first). Built once at boot from the core's routes and the plugins' routes.
import type { z } from 'zod'
import type { KeyType, RequestContext, RouteInfo } from '../pipeline/context.ts'
import type { Reply } from './reply.ts'
import type { RouteDocs } from './route-docs.ts'

export interface Route extends RouteInfo {
  readonly method: string
  readonly path: string
  readonly body?: z.ZodType
  /** Its answer, query and credentials, for /openapi.json. */
  readonly docs?: RouteDocs
  readonly listener?: 'main' | 'auth'
  /** False leaves it out of /openapi.json. */
  readonly documented?: boolean
  /** The body is not read before the handler runs: it streams it as it is (a pass-through). */
  readonly rawBody?: boolean
  /** Absent on ai routes, whose answer is the model call. */
  readonly handle?: (ctx: RequestContext) => Reply | Promise<Reply>
}

interface RouteMatch {
  readonly route: Route
  readonly params: Record<string, string>
}

type Lookup = RouteMatch | { readonly allow: readonly string[] } | undefined

export interface RouteTable {
  find(method: string, path: string): Lookup
  readonly all: readonly Route[]
}

interface Pattern {
  readonly segments: readonly string[]
  readonly byMethod: Map<string, Route>
}

/** The rest of the path a `/*` route matched, as it came (not decoded), under this parameter name. */
const REST_PARAM = '*'

export function buildRouteTable(routes: readonly Route[]): RouteTable {
  const exact = new Map<string, Map<string, Route>>()
  const patterns: Pattern[] = []
  const prefixes: Pattern[] = []
  for (const route of routes) {
    if (route.path.endsWith('/*')) {
      const segments = route.path.slice(1, -2).split('/')
      let prefix = prefixes.find((p) => p.segments.join('/') === segments.join('/'))
      if (prefix === undefined) prefixes.push((prefix = { segments, byMethod: new Map() }))
      addRoute(prefix.byMethod, route)
    } else if (route.path.includes('/:')) {
      let pattern = patterns.find((p) => p.segments.join('/') === route.path.slice(1))
      if (pattern === undefined) patterns.push((pattern = { segments: route.path.slice(1).split('/'), byMethod: new Map() }))
      addRoute(pattern.byMethod, route)
    } else {
      let byMethod = exact.get(route.path)
      if (byMethod === undefined) exact.set(route.path, (byMethod = new Map()))
      addRoute(byMethod, route)
    }
  }
  // A literal segment wins over a parameter in the same place: `/webhooks/test` is not the
  // webhook with id "test", whichever was registered first.
  patterns.sort((a, b) => shapeOf(a).localeCompare(shapeOf(b)))
  prefixes.sort((a, b) => b.segments.length - a.segments.length || shapeOf(a).localeCompare(shapeOf(b)))
  return {
    all: routes,
    find(method, path) {
      const byMethod = exact.get(path)
      if (byMethod !== undefined) return pick(byMethod, method, {})
      const parts = path.slice(1).split('/')
      for (const pattern of patterns) {
        const params = matchSegments(pattern.segments, parts)
        if (params !== undefined) return pick(pattern.byMethod, method, params)
      }
      for (const prefix of prefixes) {
        if (parts.length <= prefix.segments.length) continue
        const params = matchSegments(prefix.segments, parts.slice(0, prefix.segments.length))
        if (params === undefined) continue
        const rest = parts.slice(prefix.segments.length).join('/')
        if (rest !== '') return pick(prefix.byMethod, method, { ...params, [REST_PARAM]: rest })
      }
      return undefined
    },
  }
}

/** One character per segment, literal before parameter, so patterns sort by how specific they are. */
function shapeOf(pattern: Pattern): string {
  return pattern.segments.map((segment) => (segment.startsWith(':') ? '1' : '0')).join('')
}

function addRoute(byMethod: Map<string, Route>, route: Route): void {
  if (byMethod.has(route.method)) throw new Error(`route ${route.method} ${route.path} is registered twice`)
  byMethod.set(route.method, route)
}

function pick(byMethod: Map<string, Route>, method: string, params: Record<string, string>): Lookup {
  const route = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined)
  return route === undefined ? { allow: [...byMethod.keys()] } : { route, params }
}

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const part = parts[i]!
    if (segment.startsWith(':')) {
      if (part === '') return undefined
      try {
        params[segment.slice(1)] = decodeURIComponent(part)
      } catch {
        return undefined
      }
    } else if (segment !== part) {
      return undefined
    }
  }
  return params
}

export const ANY_KEY: readonly KeyType[] = ['sk', 'pk']
