// The one rule for which API keys open the gateway, as the request path and the authenticate
// service apply it.
import t from 'tap'
import { systemClock } from '../../../proxy/kit/clock.ts'
import { openStore, type PluginStore } from '../../../proxy/stores/store.ts'
import { authenticateKey, createAuthenticate } from '../../../plugins/auth/authenticate.ts'
import { generateKey } from '../../../plugins/auth/logic/key-format.ts'
import { createRegistry, loadSecret } from '../../../plugins/auth/store/lmdb.ts'
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

t.test(
  'a key presented again is answered from memory, and any change of its key or project, by any process on the store, counts from the next request',
  async (t) => {
    const store = openStore(freshDataDir(t))
    t.teardown(() => store.close())
    const plugin = store.forPlugin('auth')
    let recordReads = 0
    const counted: PluginStore = {
      ...plugin,
      open<V>(name: string, options?: Parameters<PluginStore['open']>[1]) {
        const db = plugin.open<V>(name, options)
        if (name === 'keys-by-hash' || name === 'projects') {
          const getBinaryFast = db.getBinaryFast.bind(db)
          db.getBinaryFast = (key) => {
            recordReads++
            return getBinaryFast(key)
          }
        }
        return db
      },
    }
    const secret = await loadSecret(plugin, TEST_SECRET)
    const gateway = createRegistry(counted, secret, systemClock)
    // Another process on the same store, as a second worker or the CLI would be.
    const other = createRegistry(plugin, secret, systemClock)
    const project = await other.createProject({ name: 'reports', plan: 'pro', budgetDollars: 10 })
    const { record, key } = await other.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'server' })

    t.match(authenticateKey(gateway, key), { keyId: record.id })
    const readsBefore = recordReads
    t.match(authenticateKey(gateway, key), { keyId: record.id, project: { budgetDollars: 10 } })
    t.equal(recordReads, readsBefore, 'the second request read no record')

    await other.updateProject(project.id, { budgetDollars: 20 })
    t.match(authenticateKey(gateway, key), { project: { budgetDollars: 20 } }, 'a project changed elsewhere')
    await other.setKeyStatus(record.id, 'inactive')
    t.equal(await authenticateKey(gateway, key), undefined, 'a key deactivated elsewhere')
    await other.setKeyStatus(record.id, 'active')
    t.match(authenticateKey(gateway, key), { keyId: record.id })
    await other.deleteKey(record.id)
    t.equal(await authenticateKey(gateway, key), undefined, 'a key deleted elsewhere')
  },
)
