// Authenticates the API key of every keyed and AI request, checks that its type may use the
// route, and puts the key and its project on the context. A key this gateway knows as active is
// answered from memory; any other is looked up where the keys are shared before it is refused.
import { PermissionError } from '../../proxy/pipeline/errors.ts'
import { InvalidKeyError, MissingKeyError } from './errors.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { presentedKey } from './logic/api-key-header.ts'
import { authenticateKey, createAuthenticate } from './authenticate.ts'
import { createDemoProject, demoNotice } from './demo-project.ts'
import { openRegistry, whileNoProject, type RegistryHome } from './store/index.ts'
import { authSchema } from './schema.ts'
import { authLogFields, type AuthState } from './state.ts'

export default {
  name: 'auth',
  order: 100,
  gates: ['ai', 'keyed'],
  schema: authSchema,
  env: [['TOLLGATE_SECRET', ['secret'], 'string']],
  async setup(config, { store, database, log, clock, track }) {
    const home: RegistryHome = database === undefined ? { store } : { database, log }
    const registry = await openRegistry(home, config.secret, clock, true)
    const demo = config.demoOnFirstStart ? await whileNoProject(home, () => createDemoProject(registry)) : undefined
    const touched = new Map<string, number>()

    function admit(ctx: RequestContext, auth: AuthState | undefined): Reply | void {
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
    }

    return {
      provides: { registry, authenticate: createAuthenticate(registry) },
      logFields: authLogFields,
      onRequest(ctx) {
        const key = presentedKey(ctx.headers)
        if (key === undefined) return Reply.error(new MissingKeyError())
        const auth = authenticateKey(registry, key)
        return auth instanceof Promise ? auth.then((found) => admit(ctx, found)) : admit(ctx, auth)
      },
      notice: (baseUrl) => (demo === undefined ? undefined : demoNotice(demo, baseUrl)),
      close: () => registry.close(),
    }
  },
} satisfies GatewayPlugin<typeof authSchema>
