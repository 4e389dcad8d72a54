// One exact route per dashboard file, so no request path can name a file outside the list (there
// is nothing to traverse), plus the entry page at /dashboard/ and a way there from / and /dashboard.
import type { IncomingHttpHeaders } from 'node:http'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Asset } from '../assets.ts'
import { PAGE_HEADERS } from '../logic/page-headers.ts'

export const DASHBOARD_PATH = '/dashboard/'

function acceptsGzip(headers: IncomingHttpHeaders): boolean {
  return /\bgzip\b/i.test(headers['accept-encoding'] ?? '')
}

function notModified(headers: IncomingHttpHeaders, etag: string): boolean {
  const wanted = headers['if-none-match']
  return wanted?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag) === true
}

function fileRoute(path: string, asset: Asset): RouteSpec {
  const common = { ...PAGE_HEADERS, etag: asset.etag, vary: 'accept-encoding' }
  return {
    method: 'GET',
    path,
    name: 'dashboard',
    kind: 'open',
    listener: 'auth',
    documented: false,
    handle(ctx) {
      if (notModified(ctx.headers, asset.etag)) return Reply.bytes(new Uint8Array(0), common, 304)
      const headers = { ...common, 'content-type': asset.contentType }
      if (asset.gzip !== undefined && acceptsGzip(ctx.headers)) return Reply.bytes(asset.gzip, { ...headers, 'content-encoding': 'gzip' })
      return Reply.bytes(asset.body, headers)
    },
  }
}

function redirect(path: string, to: string): RouteSpec {
  return {
    method: 'GET',
    path,
    name: 'dashboard',
    kind: 'open',
    listener: 'auth',
    documented: false,
    handle: () => Reply.bytes(new Uint8Array(0), { ...PAGE_HEADERS, location: to }, 308),
  }
}

export function dashboardRoutes(assets: ReadonlyMap<string, Asset>): RouteSpec[] {
  const index = assets.get('index.html')
  if (index === undefined) throw new Error('dashboard: index.html is missing')
  const routes = [redirect('/', DASHBOARD_PATH), redirect('/dashboard', DASHBOARD_PATH), fileRoute(DASHBOARD_PATH, index)]
  for (const [name, asset] of assets) if (name !== 'index.html') routes.push(fileRoute(`${DASHBOARD_PATH}${name}`, asset))
  return routes
}
