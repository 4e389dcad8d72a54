// The operator CLI, run as a separate process against the store of a running gateway: what it
// changes takes effect on the next request.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { call, hello } from '../helpers/http.ts'
import { freshDataDir, startTestGateway, TEST_SECRET } from '../helpers/start-gateway.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

async function tollgate(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--data', dataDir], { env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET } })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

t.test('projects and keys are created, listed, deactivated, reactivated and deleted while the gateway runs', async (t) => {
  const dataDir = freshDataDir(t)
  const project = await tollgate(dataDir, 'projects', 'create', '--name', 'acme', '--plan', 'pro', '--budget', '50', '--json')
  t.equal(project.code, 0, project.stderr)
  const { id: projectId } = JSON.parse(project.stdout) as { id: string }
  t.match(projectId, /^proj_/)

  const created = await tollgate(dataDir, 'keys', 'create', '--project', projectId, '--type', 'sk', '--env', 'prod', '--name', 'ci', '--json')
  t.equal(created.code, 0, created.stderr)
  const { id: keyId, key, prefix } = JSON.parse(created.stdout) as { id: string; key: string; prefix: string }
  t.match(key, /^sk_prod_[0-9A-Za-z]{38}$/)
  t.equal(prefix, `${key.slice(0, 12)}…${key.slice(-4)}`)

  const projects = JSON.parse((await tollgate(dataDir, 'projects', 'list', '--json')).stdout) as Array<{ id: string; plan: string; budget: number }>
  t.match(projects, [{ id: projectId, plan: 'pro', budget: 50 }])

  const { url } = await startTestGateway(t, { dataDir })
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 200)

  const listed = await tollgate(dataDir, 'keys', 'list', '--project', projectId, '--json')
  t.notMatch(listed.stdout, key, 'the full key is never listed')
  const [row] = JSON.parse(listed.stdout) as Array<Record<string, unknown>>
  t.match(row, { id: keyId, name: 'ci', prefix, status: 'active', type: 'sk', env: 'prod' })
  t.type(row!.created, 'string')
  t.type(row!.lastUsed, 'string', 'the request above set last used')

  t.equal((await tollgate(dataDir, 'keys', 'deactivate', keyId)).code, 0)
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 401)
  t.equal((await tollgate(dataDir, 'keys', 'reactivate', keyId)).code, 0)
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 200)
  t.equal((await tollgate(dataDir, 'keys', 'delete', keyId)).code, 0)
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 401)
  t.same(JSON.parse((await tollgate(dataDir, 'keys', 'list', '--project', projectId, '--json')).stdout), [])

  const updated = await tollgate(dataDir, 'projects', 'update', projectId, '--plan', 'growth', '--budget', '75', '--json')
  t.match(JSON.parse(updated.stdout), { id: projectId, plan: 'growth', budget: 75 })
})

t.test('mistakes on the command line exit with 2 and say what is wrong', async (t) => {
  const dataDir = freshDataDir(t)
  const noType = await tollgate(dataDir, 'keys', 'create', '--project', 'proj_x', '--name', 'n')
  t.equal(noType.code, 2)
  t.match(noType.stderr, /--type is required/)
  const badPlan = await tollgate(dataDir, 'projects', 'create', '--name', 'x', '--plan', 'platinum')
  t.equal(badPlan.code, 2)
  t.match(badPlan.stderr, /--plan must be one of free, pro, startup, growth, enterprise/)
  const noProject = await tollgate(dataDir, 'keys', 'create', '--project', 'proj_missing', '--type', 'sk', '--name', 'n')
  t.equal(noProject.code, 2)
  t.match(noProject.stderr, /no project with id proj_missing/)
  const unknown = await tollgate(dataDir, 'frobnicate')
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "frobnicate"/)
})

t.test("a key's own budget and rpm: set at creation, changed and removed with keys update, and enforced at once", async (t) => {
  const dataDir = freshDataDir(t)
  const { id: projectId } = JSON.parse(
    (await tollgate(dataDir, 'projects', 'create', '--name', 'acme', '--plan', 'enterprise', '--budget', '50', '--json')).stdout,
  ) as { id: string }
  const created = await tollgate(
    dataDir,
    'keys',
    'create',
    '--project',
    projectId,
    '--type',
    'sk',
    '--env',
    'prod',
    '--name',
    'ci',
    '--budget',
    '0.000001',
    '--rpm',
    '5',
    '--json',
  )
  t.equal(created.code, 0, created.stderr)
  const { id: keyId, key } = JSON.parse(created.stdout) as { id: string; key: string }
  t.match(JSON.parse(created.stdout), { budgetDollars: 0.000001, rpm: 5 })
  t.match(JSON.parse((await tollgate(dataDir, 'keys', 'list', '--project', projectId, '--json')).stdout), [{ id: keyId, budget: 0.000001, rpm: 5 }])

  const { url } = await startTestGateway(t, { dataDir })
  const refused = await call(`${url}/api/ai/complete`, { key, body: hello })
  t.equal(refused.status, 402, "the key's budget cannot cover a request")
  t.match(refused.body.message, /the key has/)

  t.match(JSON.parse((await tollgate(dataDir, 'keys', 'update', keyId, '--budget', 'none', '--rpm', '1', '--json')).stdout), {
    id: keyId,
    budgetDollars: null,
    rpm: 1,
  })
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 200, "no budget of its own: the project's applies")
  const limited = await call(`${url}/api/ai/complete`, { key, body: hello })
  t.equal(limited.status, 429, 'one request a minute')
  t.equal(limited.headers['x-ratelimit-limit'], '1')
  t.equal((await tollgate(dataDir, 'keys', 'update', keyId, '--rpm', 'none')).code, 0)
  t.equal((await call(`${url}/api/ai/complete`, { key, body: hello })).status, 200, "no rpm of its own: the plan's applies")

  const badRpm = await tollgate(dataDir, 'keys', 'create', '--project', projectId, '--type', 'sk', '--name', 'n', '--rpm', '0')
  t.equal(badRpm.code, 2)
  t.match(badRpm.stderr, /--rpm must be at least 1/)
  const badBudget = await tollgate(dataDir, 'keys', 'update', keyId, '--budget', 'lots')
  t.equal(badBudget.code, 2)
  t.match(badBudget.stderr, /--budget must be a number of dollars/)
})
