// The dashboard: the web front end people use instead of the CLI, served by the gateway itself
// (on the auth listener when AUTH_PORT is set) as static files that call the management API with
// the account endpoints' bearer tokens. It holds no business rules and no state of its own; it
// provides the pages that mailed links open, for the accounts plugin set up after it.
import { fileURLToPath } from 'node:url'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { loadAssets } from './assets.ts'
import { DASHBOARD_PATH, dashboardRoutes } from './routes/file-routes.ts'
import { dashboardSchema } from './schema.ts'

const FRONT_END_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url))

const page = (name: string) => (token: string) => `${DASHBOARD_PATH}#/${name}?token=${encodeURIComponent(token)}`

export default {
  name: 'dashboard',
  order: 550,
  gates: [],
  schema: dashboardSchema,
  setup(config) {
    if (!config.enabled) return {}
    return {
      provides: { accountPages: { verifyEmail: page('verify'), signIn: page('magic'), acceptInvitation: page('invitation') } },
      routes: dashboardRoutes(loadAssets(FRONT_END_DIR)),
    }
  },
} satisfies GatewayPlugin<typeof dashboardSchema>
