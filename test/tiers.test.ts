// The tiers split the suite: every test file is in exactly one, and each tier is what its files start.
import t from 'tap'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { filesOf, tierOf, TIERS } from './tiers.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

t.test('every test file is in exactly one tier', async (t) => {
  const all = (readdirSync(`${root}test`, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${name}`)
    .sort()
  const tiered = TIERS.flatMap((tier) => filesOf(root, tier)).sort()
  t.same(tiered, all)
  t.ok(filesOf(root, 'unit').includes('test/workers/scan/checksums.test.ts'))
  t.ok(filesOf(root, 'e2e').includes('test/e2e/upstream.test.ts'))
  t.ok(filesOf(root, 'shared').includes('test/plugins/metering/shared-crash.test.ts'))
  t.ok(filesOf(root, 'browser').includes('test/plugins/dashboard/browser.test.ts'))
})

t.test('a file is in the first tier whose mark it carries', async (t) => {
  t.equal(tierOf(`import t from 'tap'\nimport { luhn } from '../checksums.ts'`), 'unit')
  t.equal(tierOf(`import { startTestGateway } from '../helpers/start-gateway.ts'`), 'e2e')
  t.equal(tierOf(`import { startPostgres } from '../helpers/postgres-server.ts'\nimport { startTestGateway } from '../helpers/start-gateway.ts'`), 'shared')
  t.equal(tierOf(`import { chromium } from 'playwright-core'\nimport { startPostgres } from '../helpers/postgres-server.ts'`), 'browser')
})
