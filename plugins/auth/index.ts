// Authenticates the API key of every keyed and AI request, checks that its type may use the
// route, and puts the key and its project on the context. A key this gateway knows as active is
// answered from memory; any other is looked up where the keys are shared before it is refused.
import { InvalidKeyError, MissingKeyError, PermissionError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import type { RequestContext } from '../../proxy/context.ts'
import type { Project } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import { presentedKey } from './api-key-header.ts'
import { createDemoProject, demoNotice } from './demo-project.ts'
import { parseKey } from './key-format.ts'
import { openRegistry } from './open-registry.ts'
import { whileEmpty } from './postgres-registry.ts'
import type { KeyRecord } from './registry.ts'
import { authSchema } from './schema.ts'

export default {
  name: 'auth',
  order: 100,
  gates: ['ai', 'keyed'],
  schema: authSchema,
  async setup(config, { store, database, log, clock, track }) {
    const home = database === undefined ? { store } : { database, log }
    const registry = await openRegistry(home, config.secret, clock, true)
    const demo = !config.demoOnFirstStart ? undefined
      : database === undefined ? await createDemoProject(registry)
      : await whileEmpty(database, () => createDemoProject(registry))
    const touched = new Map<string, number>()

    const projectOf = (record: KeyRecord | undefined) => (record?.status === 'active' ? registry.getProject(record.projectId) : undefined)

    function admit(ctx: RequestContext, record: KeyRecord, project: Project): Reply | void {
      if (!ctx.route.keyTypes.includes(record.type)) {
        const allowed = ctx.route.keyTypes.map((t) => `${t}_`).join(' or ')
        return Reply.error(new PermissionError(`This endpoint takes ${allowed} keys; this is a ${record.type}_ key.`))
      }
      ctx.state.auth = { keyId: record.id, keyType: record.type, env: record.env, testMode: record.env === 'dev', project }
      const now = clock.now()
      if (now - (touched.get(record.id) ?? -Infinity) >= config.lastUsedIntervalMs) {
        touched.set(record.id, now)
        track(registry.touchKey(record.id))
      }
    }

    return {
      provides: { registry },
      onRequest(ctx) {
        const key = presentedKey(ctx.headers)
        if (key === undefined) return Reply.error(new MissingKeyError())
        if (parseKey(key) === undefined) return Reply.error(new InvalidKeyError())
        const known = registry.findByKey(key)
        const project = projectOf(known)
        if (project !== undefined) return admit(ctx, known!, project)
        // A database that cannot be reached throws here, and the request is answered 503, not 401.
        return registry.lookupKey(key).then((found) => {
          const owner = projectOf(found)
          return found === undefined || owner === undefined ? Reply.error(new InvalidKeyError()) : admit(ctx, found, owner)
        })
      },
      notice: (baseUrl) => (demo === undefined ? undefined : demoNotice(demo, baseUrl)),
      close: () => registry.close(),
    }
  },
} satisfies GatewayPlugin<typeof authSchema>
