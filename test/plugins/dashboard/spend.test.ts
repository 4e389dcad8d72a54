// A key's own budget and rpm, and spend by key, user and tag, in a real browser: the owner gives a
// new key a budget and a rate limit in its form, sees the key refused once the budget is spent,
// lifts the budget, and reads the spend of the key, of the end users and of the tags its server
// sent in the overview.
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { post, startAccounts, startMailbox, verifiedOwner } from '../accounts/helpers.ts'
import { browserMissing, launchBrowser, screenshotDir } from './browser.ts'

const missing = browserMissing()
// A browser and a gateway sharing two loaded cores can take longer than the suite's 120 s per file.
t.setTimeout(300_000)

t.test("a key's budget and rpm in its form, and its spend by key, user and tag in the overview", { skip: missing ?? false }, async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, overrides: { authPort: 0 } })
  const owner = await verifiedOwner(gw, mailbox, 'olivia@example.com', 'Northwind Support')
  await post(`${gw.url}/api/projects`, { name: 'Support assistant', plan: 'enterprise', budgetDollars: 50 }, owner.headers)
  const browser = await launchBrowser(t, screenshotDir(t))
  const { page } = browser

  await page.goto(`${gw.url}/dashboard/`)
  await page.getByRole('textbox', { name: 'E-mail' }).last().fill(owner.email)
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  await page.getByText('a sign-in link is on its way').waitFor()
  await page.goto((await mailbox.next(owner.email)).links[0]!)
  await page.getByRole('heading', { name: /^Overview/ }).waitFor()

  let key = ''
  await t.test('a key with a budget and an rpm of its own', async (t) => {
    await page.getByRole('link', { name: 'Manage Keys' }).click()
    await page.getByRole('button', { name: 'Create New Key' }).click()
    await page.getByLabel('Name').fill('billing service')
    await page.getByLabel('Environment').selectOption('prod')
    await page.getByLabel(/^Monthly budget of this key/).fill('0.000001')
    await page.getByLabel(/^Requests per minute/).fill('30')
    await page.getByRole('button', { name: 'Create key' }).click()
    key = await page.getByLabel('Key', { exact: true }).inputValue()
    await page.getByRole('button', { name: 'I have stored it' }).click()
    const row = page.getByRole('row').filter({ hasText: 'billing service' }).first()
    await row.waitFor()
    t.match(await row.textContent(), /\$0\.000001.*30/, "the row shows the key's budget and rpm")

    const refused = await call(`${gw.mainUrl}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: 'hi' }] } })
    t.equal(refused.status, 402, "the key's budget cannot cover a request")

    await row.getByRole('button', { name: 'Limits' }).click()
    await page.getByLabel(/^Monthly budget of this key/).fill('')
    await page.getByRole('button', { name: 'Save limits' }).click()
    const lifted = page.getByRole('row').filter({ hasText: 'billing service' }).filter({ hasNotText: '$0.000001' }).first()
    await lifted.waitFor()
    t.same(
      await lifted.getByRole('cell').evaluateAll((cells) => cells.slice(4, 6).map((cell) => cell.textContent)),
      ['—', '30'],
      'the budget is lifted, the rpm kept',
    )
    await browser.screenshot('key-limits')
  })

  await t.test('spend by key, user and tag', async (t) => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.mainUrl}/v1`, defaultHeaders: { 'x-gateway-tags': 'checkout, eu' } })
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Where is my order?' }], user: 'alice' })
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'And my refund?' }], user: 'bob' })

    await page.getByRole('link', { name: 'Overview' }).click()
    const spend = page.getByRole('region', { name: 'Spend by key, user and tag' })
    const billing = spend.getByRole('row').filter({ hasText: 'billing service' })
    await billing.waitFor()
    const cells = (row: typeof billing) => row.getByRole('cell').evaluateAll((found) => found.map((cell) => cell.textContent))
    t.match(await cells(billing), [/^billing service sk_prod_/, '2'], 'the key, by its name and prefix, with its two requests')
    t.notOk((await page.content()).includes(key), 'never by its value')
    await spend.getByRole('button', { name: 'By user' }).click()
    await spend.getByRole('cell', { name: 'alice' }).waitFor()
    t.ok(await spend.getByRole('cell', { name: 'bob' }).isVisible())
    await spend.getByRole('button', { name: 'By tag' }).click()
    const checkout = spend.getByRole('row').filter({ hasText: 'checkout' })
    await checkout.waitFor()
    t.match(await cells(checkout), ['checkout', '2'], 'each request counts for its tags')
    await browser.screenshot('spend-by-tag')
  })
  t.same(browser.problems, [])
})
