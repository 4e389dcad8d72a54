import { test } from 'tap'
import { Reply } from '../../../proxy/http/reply.ts'
import { buildRouteTable, type Route } from '../../../proxy/http/routes.ts'

const route = (method: string, path: string): Route => ({
  method,
  path,
  name: `${method} ${path}`,
  kind: 'open',
  keyTypes: [],
  stream: false,
  handle: () => Reply.json({}),
})

test('a literal segment wins over a parameter in the same place, whichever was registered first', async (t) => {
  const table = buildRouteTable([route('PATCH', '/api/projects/:projectId/webhooks/:id'), route('POST', '/api/projects/:projectId/webhooks/test')])
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

test('a trailing /* takes any non-empty rest of the path, after every more literal route', async (t) => {
  const table = buildRouteTable([
    route('POST', '/api/providers/openai/*'),
    route('GET', '/api/providers/:name/status'),
    route('POST', '/api/providers/openai/v1/special'),
    route('GET', '/api/providers/*'),
  ])
  const rest = table.find('POST', '/api/providers/openai/v1/embeddings')
  t.same(rest !== undefined && 'route' in rest ? [rest.route.path, rest.params] : undefined, ['/api/providers/openai/*', { '*': 'v1/embeddings' }])
  const literal = table.find('POST', '/api/providers/openai/v1/special')
  t.equal(literal !== undefined && 'route' in literal ? literal.route.path : undefined, '/api/providers/openai/v1/special', 'the literal route wins')
  const param = table.find('GET', '/api/providers/openai/status')
  t.equal(param !== undefined && 'route' in param ? param.route.path : undefined, '/api/providers/:name/status', 'a parameter route wins over a wildcard')
  const shorter = table.find('GET', '/api/providers/mistral/v1/models')
  t.same(
    shorter !== undefined && 'route' in shorter ? shorter.params : undefined,
    { '*': 'mistral/v1/models' },
    'the shorter prefix takes what the longer does not',
  )
  t.same(table.find('GET', '/api/providers/openai/v1/files'), { allow: ['POST'] }, 'the longest matching prefix answers 405 for another method')
  const encoded = table.find('POST', '/api/providers/openai/v1/files%2Fx')
  t.same(encoded !== undefined && 'route' in encoded ? encoded.params : undefined, { '*': 'v1/files%2Fx' }, 'the rest is not decoded')
  const alone = buildRouteTable([route('POST', '/api/providers/openai/*')])
  t.equal(alone.find('POST', '/api/providers/openai/'), undefined, 'an empty rest matches nothing')
  t.equal(alone.find('POST', '/api/providers/openai'), undefined)
  t.equal(alone.find('POST', '/api/providers/mistral/v1/x'), undefined)
})
