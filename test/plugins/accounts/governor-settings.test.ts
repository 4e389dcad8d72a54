// PATCH /api/projects/:id changes Governor settings through the Governor's own writer: a rule the
// Governor would refuse (an unsafe regex) is refused here with 400 and nothing is written, so no
// rule is ever dropped at request time.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, verifiedOwner } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

// One gateway and owner for the file (a login costs a password hash); each test has its own project.
const mailbox = await startMailbox(t)
const gw = await startAccounts(t, { mailbox, clock: manualClock() })
const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Settings')

async function ownerWithProject() {
  const project = await post(`${gw.url}/api/projects`, { name: 'site', plan: 'pro' }, owner.headers)
  const patch = (body: unknown) => call(`${gw.url}/api/projects/${project.body.id}`, { method: 'PATCH', body, headers: owner.headers })
  const read = async () => (await call(`${gw.url}/api/projects/${project.body.id}`, { headers: owner.headers })).body
  return { patch, read }
}

t.test('a catastrophic regex is refused with 400 naming the rule, and nothing of the change is written', async (t) => {
  const { patch, read } = await ownerWithProject()
  const before = await read()
  const refused = await patch({
    name: 'renamed',
    governor: {
      strictMode: true,
      customRules: [
        { name: 'ok', pattern: 'falcon', weight: 10, severity: 'LOW' },
        { name: 'bad', pattern: '(a+)+$', regex: true, weight: 10, severity: 'HIGH' },
      ],
    },
  })
  t.equal(refused.status, 400)
  t.match(refused.body.error, /^Invalid request: .*repeated group/)
  t.match(refused.body.issues, [{ path: 'governor.customRules.1.pattern' }])
  const after = await read()
  t.equal(after.name, before.name, 'the other fields of the refused request are not written either')
  t.same(after.governor, before.governor, 'settings and their version are unchanged')
})

t.test('other rules the Governor refuses are refused the same way', async (t) => {
  const { patch } = await ownerWithProject()
  for (const pattern of ['(a|ab)*c', '(x)\\1', 'x*', 'a(']) {
    const answer = await patch({ governor: { customRules: [{ name: 'r', pattern, regex: true }] } })
    t.equal(answer.status, 400, pattern)
  }
  const twice = await patch({
    governor: {
      customRules: [
        { id: 'rule_a', name: 'a', pattern: 'a' },
        { id: 'rule_a', name: 'b', pattern: 'b' },
      ],
    },
  })
  t.equal(twice.status, 400, 'an id given twice')
})

t.test('accepted settings are written once through the Governor: rules get ids and defaults, the version moves', async (t) => {
  const { patch, read } = await ownerWithProject()
  const before = await read()
  const answer = await patch({
    budgetDollars: 75,
    governor: { autoApproveThreshold: 40, customRules: [{ name: 'codename', pattern: '\\bproject\\s+falcon\\b', regex: true }] },
  })
  t.equal(answer.status, 200)
  t.equal(answer.body.budgetDollars, 75)
  t.equal(answer.body.governor.autoApproveThreshold, 40)
  t.match(answer.body.governor.customRules, [{ id: /^rule_/, name: 'codename', regex: true, weight: 20, severity: 'MEDIUM' }])
  t.equal(answer.body.governor.version, before.governor.version + 1)
  t.same((await read()).governor, answer.body.governor)
})

t.test('cacheSampled is a project setting beside cacheEnabled: written, read back, and checked', async (t) => {
  const { patch, read } = await ownerWithProject()
  t.equal((await read()).cacheSampled, false, 'off for a new project')
  const answer = await patch({ cacheSampled: true })
  t.equal(answer.status, 200)
  t.equal(answer.body.cacheSampled, true)
  t.equal((await read()).cacheSampled, true)
  const refused = await patch({ cacheSampled: 'yes' })
  t.equal(refused.status, 400)
  t.match(refused.body.issues, [{ path: 'cacheSampled', message: 'cacheSampled must be true or false' }])
})
