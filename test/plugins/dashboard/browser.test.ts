// The dashboard in a real browser, as a person with only a browser uses it: sign up, verify the
// address through the outbox, sign in, create a project and a key (shown once), use the key from
// a server, see the requests in the overview, set strict mode and a custom rule, see the blocked
// request as a violation and resolve it, approve the model it used, check its audit record,
// deactivate the key. The server's clock starts on 2026-03-02 and moves a day at a time, so the
// overview has a month to show and the page must renew its expired access token.
import t from 'tap'
import type { Page } from 'playwright-core'
import { call } from '../../helpers/http.ts'
import { startTestGateway } from '../../helpers/start-gateway.ts'

import { browserMissing, launchBrowser, screenshotDir } from './browser.ts'
import { latestMail } from './flows.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const DAY_MS = 86_400_000
const missing = browserMissing()
// A browser and a gateway sharing two loaded cores can take longer than the suite's 120 s per file.
t.setTimeout(300_000)

const ask = (content: string) => ({ messages: [{ role: 'user', content }] })

/** The first table row that holds `rowText`, once it shows. */
async function rowOf(page: Page, rowText: string) {
  const row = page.getByRole('row').filter({ hasText: rowText })
  await row.first().waitFor()
  return row.first()
}

t.test('a person signs up, manages a key, watches usage and handles a violation, all in the browser', { skip: missing ?? false }, async (t) => {
  const clock = manualClock(Date.parse('2026-03-02T09:00:00Z'))
  const { gateway, dataDir } = await startTestGateway(t, { clock, overrides: { authPort: 0 } })
  const shots = screenshotDir(t)
  const { context, page, problems, screenshot } = await launchBrowser(t, shots)
  const email = 'dana@example.com'
  const password = 'correct horse battery'

  await t.test('sign-up, verification through the outbox, sign-in', async (t) => {
    await page.goto(`${gateway.authUrl}/`)
    t.equal(new URL(page.url()).pathname, '/dashboard/', '/ leads to the dashboard')
    await page.getByRole('heading', { name: 'Sign in to Tollgate' }).waitFor()
    await screenshot('sign-in')
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByLabel('Organization name').fill('Northwind Support')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()

    const mail = await latestMail(dataDir, email)
    t.match(mail.links[0], `${gateway.authUrl}/api/auth/verify?token=`, "the mailed link is the API's")
    await page.goto(mail.links[0]!)
    await page.getByText('Your e-mail address is verified').waitFor()
    t.notMatch(page.url(), /token=/, 'the token left the address bar')

    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.getByLabel('E-mail').first().fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('heading', { name: 'Welcome' }).waitFor()
    t.ok(await page.getByText('Northwind Support').isVisible(), 'the organization is named in the header')
  })

  let key = ''
  await t.test('a project, and a key read once', async (t) => {
    await page.getByRole('link', { name: 'Create your first project' }).click()
    await page.getByLabel('Name').fill('Support assistant')
    await page.getByLabel('Plan').selectOption('pro')
    await page.getByLabel('Monthly budget (USD)').fill('50')
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Settings of Support assistant' }).waitFor()

    await page.getByRole('link', { name: 'Manage Keys' }).click()
    await page.getByRole('button', { name: 'Create New Key' }).click()
    await page.getByLabel('Name').fill('support backend')
    await page.getByLabel('Type').selectOption('sk')
    await page.getByLabel('Environment').selectOption('prod')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByText('you will not see this key again').waitFor()
    key = await page.getByLabel('Key', { exact: true }).inputValue()
    t.match(key, /^sk_prod_\w{32,}/, 'the full key is shown on its creation screen')
    t.ok(await page.getByRole('button', { name: 'Copy key' }).isVisible())
    await screenshot('key-created')
    await page.getByRole('button', { name: 'I have stored it' }).click()
    const row = await rowOf(page, 'support backend')
    t.match(await row.textContent(), /sk_prod_.*active/)
    t.notOk((await page.content()).includes(key), 'once the creation screen is closed, the key is nowhere in the page')
  })

  await t.test('the key works from a server, and the requests show in the overview', async (t) => {
    const first = await call(`${gateway.url}/api/ai/complete`, { key, body: ask('Where is my order 1042?') })
    t.equal(first.status, 200, 'the key answers on the main listener')
    // A week and more of traffic: a few requests a day, and one asked twice (the second a cache hit).
    let sent = 1
    const statuses = new Set<number>()
    for (let day = 0; day < 8; day++) {
      clock.advance(DAY_MS)
      for (let i = 0; i <= day % 3; i++) {
        const body = { ...ask(`Summarize ticket ${day}-${i} for the weekly report`), quality: (['cheap', 'balanced', 'frontier'] as const)[i] }
        statuses.add((await call(`${gateway.url}/api/ai/complete`, { key, body })).status)
        sent++
      }
      for (let i = 0; i < 2; i++) statuses.add((await call(`${gateway.url}/api/ai/complete`, { key, body: ask(`Is order ${1100 + day} shipped?`) })).status)
      sent += 2
    }
    t.same([...statuses], [200], 'every request is answered')
    await page.getByRole('link', { name: 'Overview' }).click()
    await page.getByRole('heading', { name: /^Overview/ }).waitFor()
    const requests = page.locator('.stat', { hasText: 'Requests' }).locator('.value')
    t.equal(await requests.textContent(), String(sent), 'the month shows every request, after the page renewed its expired access token')
    t.ok(await page.getByRole('cell', { name: 'gpt-4o-mini' }).isVisible(), 'the per-model table lists the models')
    t.match(await page.locator('.stat', { hasText: 'Cache hit rate' }).textContent(), /8 hits/)
    t.ok(await page.getByRole('progressbar').isVisible(), 'spend is shown against the monthly budget')
    t.ok(await page.locator('.chart canvas').first().isVisible(), 'the spend per day is drawn')
    await screenshot('overview')
    await page.getByRole('button', { name: 'Today' }).click()
    await page.locator('.stat', { hasText: 'Requests' }).locator('.value', { hasText: /^4$/ }).waitFor()
    t.pass("today shows only today's requests")
  })

  let auditId = ''
  await t.test('strict mode and a custom rule, tried on a sample before it is saved', async (t) => {
    await page.getByRole('link', { name: 'Governor' }).click()
    await page.getByLabel(/Strict mode/).check()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved.').waitFor()
    await page.getByLabel('Name').fill('Project Falcon')
    await page.getByLabel(/^Pattern/).fill('project falcon')
    await page.getByLabel(/^Weight/).fill('90')
    await page.getByLabel('Severity').selectOption('CRITICAL')
    await page.getByLabel('Sample text to try the rule on').fill('Customer asked about Project Falcon and its launch date.')
    await page.getByRole('button', { name: 'Test rule' }).click()
    await page.getByText('Matches 1 time.').waitFor()
    t.equal(await page.locator('mark').textContent(), 'Project Falcon', 'the match is highlighted in the sample')
    await screenshot('governor-rule-test')
    await page.getByRole('button', { name: 'Save rule' }).click()
    await (await rowOf(page, 'project falcon')).waitFor()
    t.pass('the rule is listed')

    const blocked = await call(`${gateway.url}/api/ai/complete`, {
      key,
      body: { ...ask('What can you tell me about Project Falcon?'), governorMetadata: { actionType: 'customer_support', senderId: 'agent-7' } },
    })
    t.equal(blocked.status, 403, 'strict mode blocks the request')
    t.equal(blocked.body.error, 'Request blocked by Governor')
    auditId = blocked.body.auditId
    await page.reload()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    t.pass('a reload keeps the session: the refresh cookie signs the page in again')
    const [cookie, ...others] = await context.cookies()
    t.same(others, [], "one cookie, the refresh token's")
    t.match(cookie, { name: '__Secure-tollgate-refresh', path: '/api/auth/refresh', httpOnly: true, secure: true, sameSite: 'Strict' })
    const tab = await context.newPage()
    await tab.goto(page.url())
    await tab.getByRole('button', { name: 'Sign out' }).waitFor()
    t.pass('a new tab is signed in too')
    await tab.close()
  })

  await t.test('the blocked request is a violation; it is resolved, and its audit record checks out', async (t) => {
    // The page's access token expires, as on a computer that slept: signing out still ends the session.
    clock.advance(2 * 3600_000)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('E-mail').first().waitFor()
    t.same(await context.cookies(), [], 'signing out cleared the refresh cookie')
    await page.reload()
    await page.getByLabel('E-mail').first().waitFor()
    t.pass('and a reload stays signed out')
    // Signed in again with the keyboard alone.
    await page.keyboard.press('Tab')
    await page.keyboard.type(email)
    await page.keyboard.press('Tab')
    await page.keyboard.type(password)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: /^Overview/ }).waitFor()
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content', 'the first stop skips the navigation')
    await page.getByRole('link', { name: 'Governor' }).click()
    const model = await rowOf(page, 'gpt-4o-mini')
    t.match(await model.textContent(), /pending/, 'the governed request registered its model')
    await model.getByRole('button', { name: 'Approve' }).click()
    await model.getByText('approved').waitFor()
    await page.getByRole('link', { name: 'Compliance' }).click()
    const violation = await rowOf(page, 'Project Falcon')
    t.match(await violation.textContent(), /POLICY.*CRITICAL.*open/)
    t.match(await page.locator('.stat', { hasText: 'Compliance score' }).textContent(), /80/, 'a critical violation takes 20 points')
    await screenshot('compliance')
    await violation.getByRole('button', { name: 'Resolve' }).click()
    await page.getByRole('cell', { name: 'None.' }).waitFor()
    await page.getByLabel('Status').selectOption('resolved')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    t.match(await (await rowOf(page, 'Project Falcon')).textContent(), /resolved/)

    await (await rowOf(page, 'Project Falcon')).getByRole('link', { name: auditId }).click()
    await page.getByText('The hash chain holds').waitFor()
    t.match(page.url(), `#/compliance?audit=${auditId}`, 'an audit record has its own address')
    t.equal(await page.getByLabel('Audit id').inputValue(), auditId)
    t.match(await page.locator('dl.facts').textContent(), /blocked/)
    await screenshot('audit-record')
  })

  await t.test('a deactivated key gets 401', async (t) => {
    await page.getByRole('link', { name: 'Manage Keys' }).click()
    const row = await rowOf(page, 'support backend')
    await row.getByRole('button', { name: 'Deactivate' }).click()
    const dialog = page.getByRole('dialog')
    t.match(await dialog.textContent(), /Requests with this key will get 401/)
    await dialog.getByRole('button', { name: 'Deactivate' }).click()
    await row.getByText('inactive').waitFor()
    await screenshot('keys')
    const refused = await call(`${gateway.url}/api/ai/complete`, { key, body: ask('Still there?') })
    t.equal(refused.status, 401)
    t.equal(refused.body.error, 'Invalid or inactive API key')
  })

  await t.test('nothing was kept in browser storage and the page broke no rule', async (t) => {
    // Evaluated in the page, where the DOM's globals exist.
    const kept = await page.evaluate('({ local: localStorage.length, session: sessionStorage.length, cookies: document.cookie })')
    t.same(kept, { local: 0, session: 0, cookies: '' })
    t.same(problems, [], 'no script error and nothing refused by the Content-Security-Policy')
  })
})
