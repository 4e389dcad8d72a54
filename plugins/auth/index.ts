// Authenticates the API key of every keyed and AI request, checks that its type may use the
// route, and puts the key and its project on the context.
import { InvalidKeyError, MissingKeyError, PermissionError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { presentedKey } from './api-key-header.ts'
import { authenticateKey, createAuthenticate } from './authenticate.ts'
import { createDemoProject, demoNotice } from './demo-project.ts'
import { createRegistry, loadSecret } from './registry.ts'
import { authSchema } from './schema.ts'
import { authLogFields } from './state.ts'

export default {
  name: 'auth',
  order: 100,
  gates: ['ai', 'keyed'],
  schema: authSchema,
  env: [['TOLLGATE_SECRET', ['secret'], 'string']],
  async setup(config, { store, clock, track }) {
    const registry = createRegistry(store, await loadSecret(store, config.secret), clock)
    const demo = config.demoOnFirstStart ? await createDemoProject(registry) : undefined
    const touched = new Map<string, number>()
    return {
      provides: { registry, authenticate: createAuthenticate(registry) },
      logFields: authLogFields,
      onRequest(ctx) {
        const key = presentedKey(ctx.headers)
        if (key === undefined) return Reply.error(new MissingKeyError())
        const auth = authenticateKey(registry, key)
        if (auth === undefined) return Reply.error(new InvalidKeyError())
        if (!ctx.route.keyTypes.includes(auth.keyType)) {
          const allowed = ctx.route.keyTypes.map((t) => `${t}_`).join(' or ')
          return Reply.error(new PermissionError(`This endpoint takes ${allowed} keys; this is a ${auth.keyType}_ key.`))
        }
        ctx.state.auth = auth
        ctx.caller = auth
        const now = clock.now()
        if (now - (touched.get(auth.keyId) ?? -Infinity) >= config.lastUsedIntervalMs) {
          touched.set(auth.keyId, now)
          track(registry.touchKey(auth.keyId))
        }
      },
      notice: (baseUrl) => (demo === undefined ? undefined : demoNotice(demo, baseUrl)),
    }
  },
} satisfies GatewayPlugin<typeof authSchema>
