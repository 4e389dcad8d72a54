// Accounts: sign-up, login, magic links and token refresh for people, and the management API
// (organization, members, projects, keys, audit log) they use with the access tokens. Routes
// only: they are open routes that authenticate bearer tokens themselves, served on AUTH_PORT when
// one is set. Projects and keys go through the auth plugin's registry, which it provides as a service;
// it provides in turn the members' access to the other plugins' project routes.
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { invitationRoutes } from './routes/invitation-routes.ts'
import { keyRoutes } from './routes/key-routes.ts'
import { loginRoutes } from './routes/login-routes.ts'
import { memberRoutes } from './routes/member-routes.ts'
import { organizationRoutes } from './routes/organization-routes.ts'
import { createProjectAccess } from './routes/project-access.ts'
import { projectRoutes } from './routes/project-routes.ts'
import { queryRoute } from './routes/query-route.ts'
import { accountsSchema } from './schema.ts'
import { createAccountServices } from './services.ts'
import { signupRoutes } from './routes/signup-routes.ts'
import { tokenRoutes } from './routes/token-routes.ts'

export default {
  name: 'accounts',
  order: 600,
  gates: [],
  requires: ['auth', 'router'],
  env: [
    ['SMTP_URL', ['smtpUrl'], 'string'],
    ['MAIL_FROM', ['mailFrom'], 'string'],
    ['PUBLIC_AUTH_URL', ['publicUrl'], 'string'],
  ],
  schema: accountsSchema,
  async setup(config, deps) {
    const services = await createAccountServices(config, deps, deps.services.registry!)
    return {
      provides: { projectAccess: createProjectAccess(services) },
      routes: [
        ...signupRoutes(services),
        ...loginRoutes(services),
        ...tokenRoutes(services),
        ...organizationRoutes(services),
        ...memberRoutes(services),
        ...invitationRoutes(services),
        ...projectRoutes(services),
        ...keyRoutes(services),
        queryRoute(services),
      ],
      close: () => services.mailer.close(),
    }
  },
} satisfies GatewayPlugin<typeof accountsSchema>
