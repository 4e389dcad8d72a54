// `tollgate serve` that cannot start says why in one line naming the setting to change, with no
// stack trace, and exits non-zero: a bad environment value, a data path that is a file, a port
// in use.
import t from 'tap'
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

function serve(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'serve', ...args],
      { env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, PORT: '0', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? null), stdout, stderr })
      },
    )
  })
}

t.test("a bad environment value is reported under the variable's name", async (t) => {
  const dataDir = freshDataDir(t)
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: '99999' }, 'tollgate: invalid configuration: PORT: Too big: expected number to be <=65535'],
    [{ BODY_LIMIT_BYTES: '-1' }, 'tollgate: BODY_LIMIT_BYTES must be a whole number, got "-1"'],
  ]
  for (const [env, line] of cases) {
    const { code, stderr } = await serve({ TOLLGATE_DATA: dataDir, ...env })
    t.equal(code, 2, `${Object.keys(env)[0]}: exit 2`)
    t.equal(stderr.trim(), line)
  }
})

t.test('a data path that is a file', async (t) => {
  const file = join(freshDataDir(t), 'data')
  writeFileSync(file, '')
  const { code, stderr } = await serve({ TOLLGATE_DATA: file })
  t.equal(code, 2)
  t.equal(stderr.trim(), `tollgate: the data directory ${file} is a file, not a directory (TOLLGATE_DATA)`)
})

t.test('a port in use', async (t) => {
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const port = String((taken.address() as AddressInfo).port)
  const { code, stderr } = await serve({ TOLLGATE_DATA: freshDataDir(t), PORT: port })
  t.equal(code, 2)
  t.equal(stderr.trim(), `tollgate: port ${port} is in use (PORT)`)
})
