// The dashboard on a phone-sized screen (390 px wide), and the smaller things an owner meets there:
// no view scrolls sideways; the Governor's output redaction is a switch; the organization's audit
// log has its page, for owners; a new webhook starts with an event ticked; the compliance score
// says "no data" for the days before the project existed rather than a perfect score; and the
// session kept in the refresh cookie holds across tabs opened at once and is ended when a
// sign-in link replaces it.
import t from 'tap'
import type { Page } from 'playwright-core'
import { call } from '../../helpers/http.ts'
import { until } from '../../helpers/until.ts'
import { post, startAccounts, startMailbox, verifiedOwner } from '../accounts/helpers.ts'
import { browserMissing, launchBrowser, screenshotDir } from './browser.ts'

const missing = browserMissing()
// A browser and a gateway sharing two loaded cores can take longer than the suite's 120 s per file.
t.setTimeout(300_000)

const WIDTH = 390
const VIEWS = ['Overview', 'Manage Keys', 'Governor', 'Compliance', 'Webhooks', 'Projects', 'Members', 'Audit log']

/** Opens a view from the navigation and waits until it has loaded what it shows. */
async function open(page: Page, view: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: view, exact: true }).click()
  await page.getByRole('heading', { level: 1, name: new RegExp(`^${view}`) }).waitFor()
  // A function, not a string: the page's policy forbids evaluating strings.
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('main').textContent.includes('Loading'))
}

t.test('an owner on a 390 px screen: every view fits, and the small seams hold', { skip: missing ?? false }, async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, overrides: { authPort: 0 } })
  const owner = await verifiedOwner(gw, mailbox, 'nora@example.com', 'Northwind Support')
  const created = await post(`${gw.url}/api/projects`, { name: 'Support assistant with a rather long name', plan: 'pro', budgetDollars: 50 }, owner.headers)
  const projectId = created.body.id as string
  const browser = await launchBrowser(t, screenshotDir(t))
  const { page } = browser
  await page.setViewportSize({ width: WIDTH, height: 844 })

  await page.goto(`${gw.url}/dashboard/`)
  await page.getByLabel('E-mail').first().fill(owner.email)
  await page.getByLabel('Password').fill(owner.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()

  await t.test('no view scrolls sideways', async (t) => {
    for (const view of VIEWS) {
      await open(page, view)
      const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
      // What sticks out, for the failure's message; a table's insides scroll within it.
      const wide = await page.evaluate(
        (limit) =>
          [...(globalThis as any).document.querySelectorAll('body *')]
            .filter((e: any) => e.getBoundingClientRect().right > limit && e.closest('table') === null)
            .slice(0, 5)
            .map((e: any) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
        WIDTH,
      )
      t.ok(width <= WIDTH, `${view}: ${width} px wide`, { wide })
    }
    await browser.screenshot('narrow-audit-log')
  })

  await t.test("the audit log lists the organization's changes", async (t) => {
    await open(page, 'Audit log')
    const row = page.getByRole('row').filter({ hasText: 'project.create' })
    await row.first().waitFor()
    t.match(await row.first().textContent(), /nora@example\.com.*project Support assistant/)
  })

  await t.test('output redaction is a switch beside strict mode', async (t) => {
    await open(page, 'Governor')
    await page.getByLabel(/Redact output/).check()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved.').waitFor()
    const project = await call(`${gw.url}/api/projects/${projectId}`, { headers: owner.headers })
    t.equal(project.body.governor.redactOutput, true)
  })

  await t.test('a new webhook starts with an event ticked', async (t) => {
    await open(page, 'Webhooks')
    t.equal(await page.getByLabel('violation.detected').isChecked(), true)
    t.equal(await page.getByLabel('All events').isChecked(), false)
  })

  await t.test('the compliance score has no data before the project existed', async (t) => {
    await open(page, 'Compliance')
    const chart = page.locator('figure', { hasText: 'Compliance score, end of each day' })
    await chart.getByText(/^No data before 2026-03-02, when the project was created/).waitFor()
    await chart.getByText(/the numbers$/).click()
    t.match(await chart.getByRole('row').filter({ hasText: '2026-03-01' }).textContent(), /no data/)
    t.match(await chart.getByRole('row').filter({ hasText: '2026-03-02' }).textContent(), /100/)
  })

  await t.test('tabs opened at once all sign in from the one cookie, without ending the session', async (t) => {
    const tabs = await Promise.all([1, 2, 3].map(() => browser.context.newPage()))
    await Promise.all(
      tabs.map(async (tab) => {
        await tab.goto(`${gw.url}/dashboard/#/projects`)
        await tab.getByRole('button', { name: 'Sign out' }).waitFor()
      }),
    )
    t.pass('each tab is signed in')
    await Promise.all(tabs.map((tab) => tab.close()))
    await page.reload()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    t.pass('the session lives on: no refresh token was presented twice')
  })

  await t.test('a sign-in link opened while signed in ends the session it replaces', async (t) => {
    await post(`${gw.url}/api/auth/magic-link`, { email: owner.email })
    await page.goto((await mailbox.next(owner.email)).links[0]!)
    await page.getByRole('heading', { name: /^Overview/ }).waitFor()
    const loggedOut = /tollgate_requests_total\{[^}]*route="auth_logout"[^}]*status_class="2xx"[^}]*\} 1\b/
    await until(async () => loggedOut.test((await call(`${gw.mainUrl}/metrics`)).body), 'the replaced session is logged out')
    await page.reload()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    t.pass('and the new one lives on')
  })

  t.same(browser.problems, [], 'no script error and nothing refused by the Content-Security-Policy')
})
