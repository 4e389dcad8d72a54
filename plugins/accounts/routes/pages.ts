// A person who opens a mailed link lands on the dashboard's page for it (when a dashboard is
// served), which then calls the same endpoint as a program would. Programs, which do not navigate,
// get the endpoint's JSON answer as before. The token travels in the URL's fragment, which
// browsers never send to a server.
import type { IncomingHttpHeaders } from 'node:http'
import type { AccountPages } from '../../dashboard/state.ts'
import { Reply } from '../../../proxy/http/reply.ts'

/** A browser loading a page, as opposed to a script's fetch or a program's request. */
export function isNavigation(headers: IncomingHttpHeaders): boolean {
  const mode = headers['sec-fetch-mode']
  if (mode !== undefined) return mode === 'navigate'
  // Browsers without Fetch Metadata still ask for HTML first when they load a page.
  return /^\s*text\/html\b/i.test(headers.accept ?? '')
}

export function toPage(pages: AccountPages | undefined, page: keyof AccountPages, token: string): Reply | undefined {
  if (pages === undefined) return undefined
  const location = pages[page](token)
  return Reply.json({ success: true, message: `Continue in the dashboard: ${location}`, location }, 303, { location })
}
