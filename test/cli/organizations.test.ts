// Projects made with the command line (or at first start) join an organization, so its members
// see them in the dashboard: `projects create --org`, `projects attach`, and `orgs list` to find
// the organization's id. On either store, while the gateway runs.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { TEST_SECRET } from '../helpers/start-gateway.ts'
import { type AccountsGateway, startAccounts, startMailbox, testOnEachStore, verifiedOwner } from '../plugins/accounts/helpers.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

async function tollgate(gw: AccountsGateway, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, TOLLGATE_SECRET: TEST_SECRET, ...(gw.databaseUrl === undefined ? {} : { DATABASE_URL: gw.databaseUrl }) }
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--data', gw.dataDir], { env })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

testOnEachStore(t, 'a project made on the command line is attached to an organization and shows in its dashboard', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const owner = await verifiedOwner(gw, mailbox, 'ops@example.com', 'Northwind')
  const dashboardProjects = async () =>
    ((await call(`${gw.url}/api/projects`, { headers: owner.headers })).body.projects as Array<{ name: string }>).map((p) => p.name).sort()

  const orgs = JSON.parse((await tollgate(gw, 'orgs', 'list', '--json')).stdout)
  t.match(orgs, [{ id: owner.organizationId, name: 'Northwind', projects: 0 }], 'orgs list names the organization and its id')

  const made = JSON.parse((await tollgate(gw, 'projects', 'create', '--name', 'made here', '--json')).stdout)
  t.equal(made.organization, null)
  t.same(await dashboardProjects(), [], 'a project of no organization is in no dashboard')

  const attached = await tollgate(gw, 'projects', 'attach', made.id, '--org', owner.organizationId)
  t.equal(attached.code, 0, attached.stderr)
  t.match(attached.stdout, `attached project ${made.id} to Northwind`)
  const direct = JSON.parse((await tollgate(gw, 'projects', 'create', '--name', 'made for them', '--org', owner.organizationId, '--json')).stdout)
  t.equal(direct.organization, owner.organizationId)
  t.same(await dashboardProjects(), ['made for them', 'made here'], "both show in the organization's dashboard")
  t.match(JSON.parse((await tollgate(gw, 'projects', 'list', '--json')).stdout), [{ id: made.id, organization: owner.organizationId }])

  const unknown = await tollgate(gw, 'projects', 'attach', made.id, '--org', '00000000-0000-4000-8000-000000000000')
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /no organization with id 00000000-0000-4000-8000-000000000000/)
  const typo = await tollgate(gw, 'projects', 'create', '--name', 'lost', '--org', 'nope')
  t.equal(typo.code, 2, 'a project is never made for an organization that does not exist')
  t.equal((await tollgate(gw, 'projects', 'attach', '--org', owner.organizationId)).code, 2, 'attach needs a project id')
  t.equal((await tollgate(gw, 'projects', 'attach', 'proj_missing', '--org', owner.organizationId)).code, 2, 'an unknown project is a usage error')
  t.match(JSON.parse((await tollgate(gw, 'orgs', 'list', '--json')).stdout), [{ id: owner.organizationId, projects: 2 }])
})
