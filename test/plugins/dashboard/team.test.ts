// The dashboard for a team, in a real browser: the owner signs in with a magic link, registers a
// webhook, sends it a test event, reads its deliveries and redelivers one, and invites a member;
// the member accepts in their own browser and sees everything but no button that changes anything.
import t from 'tap'
import { post, startAccounts, startMailbox, verifiedOwner } from '../accounts/helpers.ts'
import { startReceiver } from '../webhooks/fixtures/receiver.ts'
import { browserMissing, launchBrowser, screenshotDir } from './browser.ts'

const missing = browserMissing()
// A browser and a gateway sharing two loaded cores can take longer than the suite's 120 s per file.
t.setTimeout(300_000)

t.test('an owner and a member share the dashboard, each with what their role allows', { skip: missing ?? false }, async (t) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, overrides: { authPort: 0, plugins: { webhooks: { allowPrivateTargets: true, allowHttp: true } } } })
  const receiver = await startReceiver(t)
  const owner = await verifiedOwner(gw, mailbox, 'olivia@example.com', 'Northwind Support')
  await post(`${gw.url}/api/projects`, { name: 'Support assistant', plan: 'pro', budgetDollars: 50 }, owner.headers)
  await post(`${gw.url}/api/projects`, { name: 'Internal search', plan: 'free', budgetDollars: 10 }, owner.headers)
  const shots = screenshotDir(t)
  const browser = await launchBrowser(t, shots)
  const { page } = browser

  await t.test('the owner signs in with a magic link', async (t) => {
    await page.goto(`${gw.url}/dashboard/`)
    await page.getByRole('textbox', { name: 'E-mail' }).last().fill(owner.email)
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
    await page.getByText('a sign-in link is on its way').waitFor()
    const link = (await mailbox.next(owner.email)).links[0]!
    await page.goto(link)
    await page.getByRole('heading', { name: /^Overview/ }).waitFor()
    t.notMatch(page.url(), /token=/, "the link's token is not left in the address bar")
    t.ok(await page.getByText('olivia@example.com').isVisible())
  })

  await t.test('a webhook is registered, tested, and a delivery redelivered', async (t) => {
    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByLabel('URL').fill(receiver.url)
    await page.getByLabel('All events').check()
    await page.getByRole('button', { name: 'Generate a secret' }).click()
    t.match(await page.getByLabel(/^Signing secret/).inputValue(), /^[\w-]{43}$/)
    await page.getByRole('button', { name: 'Register webhook' }).click()
    await page.getByRole('cell', { name: receiver.url }).waitFor()
    await page.getByLabel('Test event').selectOption('alert.created')
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText(/Delivered in \d+ ms/).waitFor()
    t.equal(receiver.received.length, 1, 'the receiver got the test event')
    t.match(receiver.received[0]!.body, { type: 'alert.created', data: { test: true } })
    await page.getByRole('button', { name: 'Deliveries' }).click()
    const delivery = page.getByRole('row').filter({ hasText: 'alert.created (test)' })
    await delivery.first().waitFor()
    t.match(await delivery.first().textContent(), /succeeded/)
    await delivery.first().getByRole('button', { name: 'Redeliver' }).click()
    await page.getByRole('button', { name: 'Refresh' }).click()
    for (let i = 0; i < 50 && receiver.received.length < 2; i++) await page.waitForTimeout(100)
    t.equal(receiver.received.length, 2, 'the redelivery reached the receiver')
    t.equal(receiver.received[1]!.body.id, receiver.received[0]!.body.id, 'as the same event')
    await page.getByRole('button', { name: 'Refresh' }).click()
    await page.getByRole('row').filter({ hasText: 'alert.created (test)' }).nth(1).waitFor()
    await browser.screenshot('webhooks')
  })

  let invitation = ''
  await t.test('projects are listed and the owner invites a member', async (t) => {
    await page.getByRole('link', { name: 'Projects' }).click()
    await page.getByRole('cell', { name: /Internal search/ }).waitFor()
    await browser.screenshot('projects')
    await page.getByRole('link', { name: 'Members' }).click()
    const invite = page.getByRole('form', { name: 'Invite someone' })
    await invite.getByLabel('E-mail').fill('max@example.com')
    await invite.getByLabel('Role').selectOption('member')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByText('Invitation sent to max@example.com as member').waitFor()
    invitation = (await mailbox.next('max@example.com')).links[0]!
    t.match(invitation, '/api/orgs/invitations/accept?token=')
  })

  await t.test('the member accepts in their own browser and sees no button that changes anything', async (t) => {
    const theirs = await launchBrowser(t, shots)
    const their = theirs.page
    await their.goto(invitation)
    await their.getByRole('heading', { name: 'Join your team on Tollgate' }).waitFor()
    await their.getByLabel(/^Password for your new account/).fill('max-password')
    await their.getByRole('button', { name: 'Accept invitation' }).click()
    await their.getByRole('heading', { name: /^Overview/ }).waitFor()
    t.ok(await their.getByText('You are a member').isVisible())
    t.equal(await their.getByRole('link', { name: 'Audit log' }).count(), 0, 'the audit log is offered to owners only')
    await their.getByRole('link', { name: 'Manage Keys' }).click()
    // The overview's own tables stay until the keys page has replaced it.
    await their.getByRole('heading', { name: /^Manage Keys/ }).waitFor()
    await their.getByRole('table').waitFor()
    t.equal(await their.getByRole('button', { name: 'Create New Key' }).count(), 0)
    await their.getByRole('link', { name: 'Webhooks' }).click()
    await their.getByRole('cell', { name: receiver.url }).waitFor()
    t.equal(await their.getByRole('button', { name: /Delete|Disable|Register webhook|Send test/ }).count(), 0, 'no write button for a member')
    await their.getByRole('link', { name: 'Governor' }).click()
    await their.getByRole('heading', { name: 'Settings' }).waitFor()
    t.equal(await their.getByRole('button', { name: /Save/ }).count(), 0)
    t.ok(await their.getByLabel(/Strict mode/).isDisabled(), 'the settings are shown, not editable')
    await theirs.screenshot('member-view', their)
    t.same(theirs.problems, [])

    await page.getByRole('link', { name: 'Members' }).click()
    await page.getByRole('cell', { name: 'max@example.com', exact: true }).waitFor()
    await browser.screenshot('members')
  })

  await t.test('signing out ends the session', async (t) => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Tollgate' }).waitFor()
    t.same(browser.problems, [])
  })
})
