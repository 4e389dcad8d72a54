// The dashboard's files: the listener they are on, their headers (a strict Content-Security-Policy,
// no framing, content types, revalidation), compression, and that nothing outside the list of
// files is reachable however the path is written.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { Client, request } from 'undici'
import { startTestGateway } from '../../helpers/start-gateway.ts'

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Buffer
}

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<RawAnswer> {
  const res = await request(url, { method, headers })
  const body = Buffer.from(await res.body.arrayBuffer())
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') flat[name] = value
  return { status: res.statusCode, headers: flat, body }
}

/** Sends the request line exactly as written: clients normalize dot segments before sending. */
async function getRaw(origin: string, path: string): Promise<number> {
  const client = new Client(origin)
  try {
    const res = await client.request({ path, method: 'GET' })
    await res.body.dump()
    return res.statusCode
  } finally {
    await client.close()
  }
}

t.test('the dashboard is on the auth listener, with / leading to it, and not on the main listener', async (t) => {
  const { gateway } = await startTestGateway(t, { overrides: { authPort: 0 } })
  const root = await get(`${gateway.authUrl}/`)
  t.equal(root.status, 308)
  t.equal(root.headers.location, '/dashboard/')
  t.equal((await get(`${gateway.authUrl}/dashboard`)).headers.location, '/dashboard/')
  t.equal((await get(`${gateway.authUrl}/dashboard/`)).status, 200)
  t.equal((await get(`${gateway.url}/dashboard/`)).status, 404, 'not on the main listener')
  t.equal((await get(`${gateway.url}/`)).status, 404)
})

t.test('every page and file carries the security headers and its content type', async (t) => {
  const { gateway } = await startTestGateway(t)
  const expected: Record<string, RegExp> = {
    '/dashboard/': /^text\/html; charset=utf-8$/,
    '/dashboard/app.css': /^text\/css; charset=utf-8$/,
    '/dashboard/src/main.js': /^text\/javascript; charset=utf-8$/,
    '/dashboard/vendor/preact.mjs': /^text\/javascript; charset=utf-8$/,
    '/dashboard/vendor/uplot.css': /^text\/css; charset=utf-8$/,
    '/dashboard/favicon.svg': /^image\/svg\+xml$/,
  }
  for (const [path, type] of Object.entries(expected)) {
    const res = await get(`${gateway.url}${path}`)
    t.equal(res.status, 200, path)
    t.match(res.headers['content-type'], type, path)
    const csp = res.headers['content-security-policy'] ?? ''
    t.match(csp, /default-src 'none'/, path)
    t.match(csp, /script-src 'self'(;|$)/, `${path}: scripts from the dashboard only, none inline`)
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, path)
    t.match(csp, /frame-ancestors 'none'/, path)
    t.equal(res.headers['x-frame-options'], 'DENY', path)
    t.equal(res.headers['x-content-type-options'], 'nosniff', path)
    t.equal(res.headers['referrer-policy'], 'no-referrer', path)
    t.equal(res.headers['cache-control'], 'no-cache', path)
    t.match(res.headers.etag, /^"[\w-]{22}"$/, path)
    t.equal(res.headers['set-cookie'], undefined, `${path}: no cookie, ever`)
  }
})

t.test('the page has no inline script or style, and loads only its own files', async (t) => {
  const { gateway } = await startTestGateway(t)
  const page = (await get(`${gateway.url}/dashboard/`)).body.toString('utf8')
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  t.ok(scripts.length > 0)
  for (const [, attributes, inline] of scripts) {
    t.match(attributes, /src="[^":]+"/, 'every script is a file of the dashboard')
    t.equal(inline!.trim(), '', 'and has no inline code')
  }
  t.notMatch(page, /<style\b|\sstyle=|\son\w+=/i, 'no inline styles or event handlers')
})

t.test('an unchanged file costs a 304, and a client that takes gzip gets it', async (t) => {
  const { gateway } = await startTestGateway(t)
  const url = `${gateway.url}/dashboard/vendor/uplot.mjs`
  const plain = await get(url)
  const again = await get(url, { 'if-none-match': plain.headers.etag! })
  t.equal(again.status, 304)
  t.equal(again.body.length, 0)
  t.equal((await get(url, { 'if-none-match': `W/${plain.headers.etag}, "other"` })).status, 304, 'weak and listed tags match too')
  t.equal((await get(url, { 'if-none-match': '"stale"' })).status, 200)
  const zipped = await get(url, { 'accept-encoding': 'br, gzip' })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.equal(zipped.headers.vary, 'accept-encoding')
  t.ok(zipped.body.length < plain.body.length / 2, `gzip: ${zipped.body.length} bytes of ${plain.body.length}`)
  t.same(gunzipSync(zipped.body), plain.body)
  t.equal(plain.headers['content-encoding'], undefined, 'no gzip unless asked')
  const head = await get(url, {}, 'HEAD')
  t.equal(head.status, 200)
  t.equal(head.body.length, 0)
  t.equal(head.headers['content-length'], String(plain.body.length))
})

t.test('no path reaches a file outside the list: dot segments, escapes, other folders, other methods', async (t) => {
  const { gateway } = await startTestGateway(t)
  for (const path of [
    '/dashboard/../package.json',
    '/dashboard/%2e%2e/package.json',
    '/dashboard/%2E%2E/%2E%2E/etc/passwd',
    '/dashboard/src/../../package.json',
    '/dashboard/vendor/../../node_modules/preact/package.json',
    '/dashboard/..%2fpackage.json',
    '/dashboard/src%2fmain.js',
    '/dashboard/src/main.js%00.html',
    '/dashboard/src/main.js/',
    '/dashboard//etc/passwd',
    '/dashboard/\\..\\package.json',
    '/dashboard/node_modules/preact/package.json',
    '/dashboard/vendor/preact.mjs.map',
    '/dashboard/index.html',
    '/dashboard/.git/config',
    '/plugins/dashboard/index.ts',
  ]) {
    const status = await getRaw(gateway.url, path)
    t.equal(status, 404, path)
  }
  t.equal((await request(`${gateway.url}/dashboard/app.css`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).statusCode, 405)
})

t.test("the vendor files are the packages' own, with the one bare import pointed at the served copy", async (t) => {
  const { gateway } = await startTestGateway(t)
  const hooks = (await get(`${gateway.url}/dashboard/vendor/preact-hooks.mjs`)).body.toString('utf8')
  t.match(hooks, 'from"./preact.mjs"')
  t.notMatch(hooks, /from\s*["']preact["']/)
  t.notMatch(hooks, /sourceMappingURL/)
  const served = (await get(`${gateway.url}/dashboard/vendor/htm.mjs`)).body.toString('utf8')
  const shipped = readFileSync(join(dirname(createRequire(import.meta.url).resolve('htm')), 'htm.mjs'), 'utf8')
  t.equal(served.trim(), shipped.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '').trim())
})

t.test('every module the page imports is served (the vendor files, read as shipped, are checked above)', async (t) => {
  const { gateway } = await startTestGateway(t)
  const seen = new Set<string>()
  const queue = ['/dashboard/src/main.js']
  while (queue.length > 0) {
    const path = queue.pop()!
    if (seen.has(path)) continue
    seen.add(path)
    const res = await get(`${gateway.url}${path}`)
    t.equal(res.status, 200, path)
    if (path.startsWith('/dashboard/vendor/')) continue
    for (const [, specifier] of res.body.toString('utf8').matchAll(/\b(?:from|import)\s*["']([^"']+)["']/g)) {
      t.match(specifier, /^\.{1,2}\//, `${path} imports ${specifier} by a relative path`)
      queue.push(new URL(specifier!, `http://x${path}`).pathname)
    }
  }
  t.ok(seen.size > 10, `${seen.size} modules`)
})

t.test('with the dashboard turned off, nothing is served and / is a 404 again', async (t) => {
  const { gateway } = await startTestGateway(t, { overrides: { plugins: { dashboard: { enabled: false } } } })
  t.equal((await get(`${gateway.url}/dashboard/`)).status, 404)
  t.equal((await get(`${gateway.url}/`)).status, 404)
})
