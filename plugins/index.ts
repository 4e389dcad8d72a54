// The built-in plugins, in no particular order: each declares its own `order`.
import type { GatewayPlugin } from '../proxy/pipeline/plugin.ts'
import accounts from './accounts/index.ts'
import auth from './auth/index.ts'
import cache from './cache/index.ts'
import dashboard from './dashboard/index.ts'
import governor from './governor/index.ts'
import idempotency from './idempotency/index.ts'
import metering from './metering/index.ts'
import passthrough from './passthrough/index.ts'
import rateLimit from './rate-limit/index.ts'
import router from './router/index.ts'
import webhooks from './webhooks/index.ts'

export const builtinPlugins = [
  auth,
  rateLimit,
  idempotency,
  router,
  governor,
  cache,
  metering,
  passthrough,
  dashboard,
  accounts,
  webhooks,
] as readonly GatewayPlugin[]
