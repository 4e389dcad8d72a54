// The one rule for which API keys open the gateway, as the request path and the authenticate
// service apply it.
import t from 'tap'
import { systemClock } from '../../../proxy/clock.ts'
import { openStore } from '../../../proxy/store.ts'
import { authenticateKey, createAuthenticate } from '../../../plugins/auth/authenticate.ts'
import { generateKey } from '../../../plugins/auth/key-format.ts'
import { createRegistry, loadSecret } from '../../../plugins/auth/registry.ts'
import { freshDataDir, TEST_SECRET } from '../../helpers/start-gateway.ts'

t.test('an active key of an existing project opens the gateway; a malformed, unknown or inactive one does not', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const auth = store.forPlugin('auth')
  const registry = createRegistry(auth, await loadSecret(auth, TEST_SECRET), systemClock)
  const project = await registry.createProject({ name: 'reports', plan: 'pro', budgetDollars: 10 })
  const { record, key } = await registry.createKey({ projectId: project.id, type: 'pk', env: 'dev', name: 'browser' })

  const known = authenticateKey(registry, key)
  t.notOk(known instanceof Promise, 'a key held in memory is answered at once')
  t.match(known, { keyId: record.id, keyType: 'pk', env: 'dev', testMode: true, project: { id: project.id } })
  t.equal(authenticateKey(registry, 'not-a-key'), undefined)
  t.equal(await authenticateKey(registry, generateKey('pk', 'dev')), undefined, 'a well-formed key that was never issued')
  await registry.setKeyStatus(record.id, 'inactive')
  t.equal(await authenticateKey(registry, key), undefined, 'a deactivated key')

  const authenticate = createAuthenticate(registry)
  t.equal(await authenticate(key), undefined, 'the service applies the same rule')
  await registry.setKeyStatus(record.id, 'active')
  t.match(await authenticate(key), { keyId: record.id, project: { id: project.id } })
})
