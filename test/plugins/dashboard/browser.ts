// Debian's chromium driven by playwright-core, for tests of the dashboard as a person uses it.
// Each browser gets a new empty profile folder; at teardown the browser is closed and any of its
// processes still running (found by that folder in their command line) are ended by PID.
import type { Test } from 'tap'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'

const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/lib/chromium/chromium']
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  if (CHROMIUM_PATHS.find((path) => existsSync(path)) === undefined) return 'no chromium binary: install the Debian package chromium (apt-get install chromium)'
  try {
    createRequire(import.meta.url).resolve('playwright-core')
  } catch {
    return 'the playwright-core package is not installed (npm ci)'
  }
  return undefined
}

export interface TestBrowser {
  readonly context: BrowserContext
  readonly page: Page
  /** Console messages and page errors that point to a broken page: script errors and refused resources. */
  readonly problems: string[]
  /** Saves a full-page screenshot as `name`.png in the run's screenshot folder. */
  screenshot(name: string, page?: Page): Promise<void>
}

function pidsUsing(marker: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry))
    } catch {
      // The process ended while the list was read.
    }
  }
  return pids
}

/**
 * Screenshots go to DASHBOARD_SCREENSHOTS when it is set (npm run screenshots writes the documentation's),
 * otherwise to a temporary folder removed with the test.
 */
export function screenshotDir(t: Test): string {
  const asked = process.env.DASHBOARD_SCREENSHOTS
  if (asked !== undefined && asked !== '') {
    mkdirSync(asked, { recursive: true })
    return asked
  }
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-screens-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export async function launchBrowser(t: Test, shots: string): Promise<TestBrowser> {
  const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'tollgate-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATHS.find((path) => existsSync(path))!,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    reducedMotion: 'reduce',
  })
  t.teardown(async () => {
    await context.close().catch(() => {})
    for (const pid of pidsUsing(profile)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    rmSync(profile, { recursive: true, force: true })
  })
  context.setDefaultTimeout(15_000)
  const problems: string[] = []
  const watch = (page: Page) => {
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`)
    })
  }
  context.on('page', watch)
  const page = context.pages()[0] ?? (await context.newPage())
  watch(page)
  return {
    context,
    page,
    problems,
    async screenshot(name, which = page) {
      await which.screenshot({ path: join(shots, `${name}.png`), fullPage: true, animations: 'disabled' })
    },
  }
}
