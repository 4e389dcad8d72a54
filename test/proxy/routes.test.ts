import { test } from 'tap'
import { Reply } from '../../proxy/reply.ts'
import { buildRouteTable, type Route } from '../../proxy/routes.ts'

const route = (method: string, path: string): Route => ({
  method, path, name: `${method} ${path}`, kind: 'open', keyTypes: [], stream: false, handle: () => Reply.json({}),
})

test('a literal segment wins over a parameter in the same place, whichever was registered first', async (t) => {
  const table = buildRouteTable([
    route('PATCH', '/api/projects/:projectId/webhooks/:id'),
    route('POST', '/api/projects/:projectId/webhooks/test'),
  ])
  const test = table.find('POST', '/api/projects/p1/webhooks/test')
  t.ok(test !== undefined && 'route' in test && test.route.path.endsWith('/test'), 'POST …/test reaches the test route, not a 405 from …/:id')
  t.same(test !== undefined && 'route' in test ? test.params : undefined, { projectId: 'p1' })
  const patch = table.find('PATCH', '/api/projects/p1/webhooks/wh_1')
  t.same(patch !== undefined && 'route' in patch ? patch.params : undefined, { projectId: 'p1', id: 'wh_1' })
  t.same(table.find('GET', '/api/projects/p1/webhooks/wh_1'), { allow: ['PATCH'] })
})

test('paths of another length or with other literals are not found', async (t) => {
  const table = buildRouteTable([route('GET', '/api/projects/:id')])
  t.equal(table.find('GET', '/api/projects/p1/extra'), undefined)
  t.equal(table.find('GET', '/api/other/p1'), undefined)
  t.equal(table.find('GET', '/api/projects/'), undefined, 'an empty parameter matches nothing')
})
