// `tollgate governor …` changes the settings and rules the running gateway applies on its next
// request, through the same registry and policies service.
import t from 'tap'
import { governedGateway, SENSITIVE, tollgate } from './fixtures.ts'

t.test('governor settings turns strict mode on for the running gateway and shows the settings', async (t) => {
  const gw = await governedGateway(t)
  t.equal((await gw.ask('complete', `Key ${SENSITIVE.secret}`)).status, 200)
  const set = await tollgate(gw.dataDir, 'governor', 'settings', '--project', gw.projectId, '--strict', 'on', '--auto-approve', '20', '--json')
  t.equal(set.code, 0, set.stderr)
  t.same(JSON.parse(set.stdout), { project: gw.projectId, enabled: true, strictMode: true, autoApproveThreshold: 20, rules: 0, version: 2 })
  t.equal((await gw.ask('complete', `Key ${SENSITIVE.secret}`)).status, 403, 'the next request sees strict mode')
  const shown = await tollgate(gw.dataDir, 'governor', 'settings', '--project', gw.projectId)
  t.match(shown.stdout, /strictMode\s+autoApproveThreshold[\s\S]*true\s+20/)
  await tollgate(gw.dataDir, 'governor', 'settings', '--project', gw.projectId, '--enabled', 'off')
  t.equal((await gw.ask('complete', 'hello')).status, 403, 'a project with the Governor off refuses governed requests')
})

t.test('governor rules add, list and remove go through the same checks as the API', async (t) => {
  const gw = await governedGateway(t)
  const added = await tollgate(gw.dataDir, 'governor', 'rules', 'add', '--project', gw.projectId, '--name', 'Codename', '--pattern', 'falcon-\\d+', '--regex', '--weight', '40', '--severity', 'HIGH', '--json')
  t.equal(added.code, 0, added.stderr)
  const rule = JSON.parse(added.stdout) as { id: string }
  t.match(rule, { id: /^rule_/, name: 'Codename', pattern: 'falcon-\\d+', regex: true, weight: 40, severity: 'HIGH' })
  t.match((await gw.ask('complete', 'Ship falcon-2 today')).headers, { 'x-governor-risk-score': '45' })
  const listed = await tollgate(gw.dataDir, 'governor', 'rules', 'list', '--project', gw.projectId)
  t.match(listed.stdout, new RegExp(`${rule.id}\\s+Codename\\s+regex`))
  const unsafe = await tollgate(gw.dataDir, 'governor', 'rules', 'add', '--project', gw.projectId, '--name', 'x', '--pattern', '(a+)+', '--regex')
  t.equal(unsafe.code, 2)
  t.match(unsafe.stderr, /cannot be saved: a repeated group/)
  t.equal((await tollgate(gw.dataDir, 'governor', 'rules', 'remove', '--project', gw.projectId, rule.id)).code, 0)
  t.match((await gw.ask('complete', 'Ship falcon-3 today')).headers, { 'x-governor-risk-score': '5' })
  const gone = await tollgate(gw.dataDir, 'governor', 'rules', 'remove', '--project', gw.projectId, rule.id)
  t.equal(gone.code, 2)
  t.match(gone.stderr, `No policy ${rule.id} in this project.`)
})
