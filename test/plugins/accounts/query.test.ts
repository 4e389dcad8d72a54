// POST /api/ai/query on the main listener, with a bearer token or an API key, answered by the
// local model from a summary of the caller's own projects.
import t from 'tap'
import { freshDataDir, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { systemClock } from '../../../proxy/kit/clock.ts'
import { createRegistry, loadSecret } from '../../../plugins/auth/store/lmdb.ts'
import { accountSummary } from '../../../plugins/accounts/routes/account-summary.ts'
import { bearer, post, startAccounts, startMailbox, verifiedOwner } from './helpers.ts'

t.test('the query route answers a bearer token and an API key, and refuses anything else with 401', async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox })
  const owner = await verifiedOwner(gw, mailbox, 'analyst@example.com')
  const project = await post(`${gw.url}/api/projects`, { name: 'reports' }, owner.headers)
  const key = await post(`${gw.url}/api/projects/${project.body.id}/keys`, { name: 'server', type: 'pk' }, owner.headers)
  const question = { question: 'Which plan is my reports project on?' }

  const withToken = await post(`${gw.mainUrl}/api/ai/query`, question, owner.headers)
  t.equal(withToken.status, 200)
  t.match(withToken.body, { answer: /\w/, model: 'local/gpt-4o-mini', usage: { promptTokens: Number, completionTokens: Number, totalTokens: Number } })
  t.equal(withToken.body.usage.totalTokens, withToken.body.usage.promptTokens + withToken.body.usage.completionTokens)

  const withKey = await post(`${gw.mainUrl}/api/ai/query`, question, { 'x-api-key': key.body.key })
  t.equal(withKey.status, 200)
  t.equal(withKey.body.usage.promptTokens, withToken.body.usage.promptTokens, 'a key of the organization sees the same summary')
  t.equal((await post(`${gw.mainUrl}/api/ai/query`, question, bearer(key.body.key))).status, 200, 'the key may also come as a bearer token')

  for (const headers of [
    {},
    bearer('not-a-jwt'),
    { 'x-api-key': 'sk_prod_00000000000000000000000000000000000000' },
    bearer(withFlippedSignature(owner.accessToken)),
  ]) {
    const refused = await post(`${gw.mainUrl}/api/ai/query`, question, headers)
    t.equal(refused.status, 401)
    t.match(refused.body, { error: 'Unauthorized', message: String })
  }
  await post(`${gw.url}/api/keys/${key.body.id}/deactivate`, {}, owner.headers)
  t.equal((await post(`${gw.mainUrl}/api/ai/query`, question, { 'x-api-key': key.body.key })).status, 401, 'a deactivated key is refused')
  t.equal((await post(`${gw.mainUrl}/api/ai/query`, {}, owner.headers)).status, 400, 'the body is validated')
})

// The last characters of a base64url signature carry padding bits a decoder may ignore, so the
// change goes to a character inside it, which every decoder reads in full.
function withFlippedSignature(token: string): string {
  const at = token.lastIndexOf('.') + 10
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1)
}

t.test('the summary describes the projects it is given through the registry, and nothing of other organizations', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const auth = store.forPlugin('auth')
  const registry = createRegistry(auth, await loadSecret(auth, TEST_SECRET), systemClock)
  const mine = await registry.createProject({ organizationId: 'org-a', name: 'checkout', plan: 'growth', budgetDollars: 250 })
  await registry.createProject({ organizationId: 'org-b', name: 'competitor-secret', plan: 'enterprise', budgetDollars: 9999 })
  const active = await registry.createKey({ projectId: mine.id, type: 'sk', env: 'prod', name: 'a' })
  const inactive = await registry.createKey({ projectId: mine.id, type: 'sk', env: null, name: 'b' })
  await registry.setKeyStatus(inactive.record.id, 'inactive')
  await registry.updateProject(mine.id, { governor: { strictMode: true, autoApproveThreshold: 30 } })

  const ownProjects = registry.listProjects().filter((p) => p.organizationId === 'org-a')
  const summary = accountSummary(registry, 'Org A', ownProjects)
  t.equal(
    summary,
    [
      'Account: Org A. Projects: 1.',
      `- checkout (${mine.id}): plan growth, monthly budget $250, cache on for 3600s, Governor on (strict mode, auto-approve up to risk 30, 0 custom rules), API keys: 1 active, 1 inactive.`,
    ].join('\n'),
  )
  t.notMatch(summary, 'competitor')
  t.notMatch(summary, active.key, 'no key value')
})
