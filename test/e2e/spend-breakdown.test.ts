// Spend by key, end user and tag: the official SDKs' `user` and `metadata.user_id` and the
// x-gateway-tags header reach the ledger entry, and /api/usage?by=… adds up the same entries
// exactly, on LMDB and on PostgreSQL.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import pg from 'pg'
import t, { type Test } from 'tap'
import { createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'
import type { LedgerEntry } from '../../plugins/metering/store/records.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { call } from '../helpers/http.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

interface Figures {
  requests: number
  tokens: number
  micros: number
}

/** What the breakdown must say, added up from the ledger's entries. */
function expectedBreakdown(entries: readonly LedgerEntry[], valuesOf: (entry: LedgerEntry) => readonly string[]): Map<string, Figures> {
  const sums = new Map<string, Figures>()
  for (const entry of entries) {
    for (const value of valuesOf(entry)) {
      const sum = sums.get(value) ?? { requests: 0, tokens: 0, micros: 0 }
      sum.requests++
      sum.tokens += entry.promptTokens + entry.completionTokens
      sum.micros += entry.costMicros
      sums.set(value, sum)
    }
  }
  return sums
}

function reported(rows: ReadonlyArray<Record<string, unknown>>, field: string): Map<string, Figures> {
  return new Map(
    rows.map((row) => [
      row[field] as string,
      {
        requests: row.requests as number,
        tokens: row.tokens as number,
        micros: Math.round((row.costDollars as number) * 1e6),
      },
    ]),
  )
}

async function spendScenario(t: Test, databaseUrl?: string) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(
    dataDir,
    {},
    [
      { type: 'sk', env: 'prod', name: 'backend' },
      { type: 'sk', env: 'prod', name: 'batch jobs' },
    ],
    databaseUrl === undefined ? {} : { databaseUrl },
  )
  const { url, gateway } = await startTestGateway(t, { dataDir, env: databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl } })
  const [backend, batch] = seeded.keys as [{ id: string; key: string }, { id: string; key: string }]
  const ids: string[] = []

  const openai = new OpenAI({ apiKey: backend.key, baseURL: `${url}/v1`, defaultHeaders: { 'x-gateway-tags': 'checkout, eu' } })
  for (const content of ['First question', 'Second, longer question about the weather']) {
    const { response } = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], user: 'alice' }).withResponse()
    ids.push(response.headers.get('x-request-id')!)
  }
  const anthropic = new Anthropic({ apiKey: backend.key, baseURL: url, defaultHeaders: { 'x-gateway-tags': 'checkout' } })
  const { response } = await anthropic.messages
    .create({
      model: 'claude-3-haiku-20240307',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'A question from Bob' }],
      metadata: { user_id: 'bob' },
    })
    .withResponse()
  ids.push(response.headers.get('x-request-id')!)
  const native = await call(`${url}/api/ai/complete`, {
    key: batch.key,
    headers: { 'x-gateway-tags': 'nightly' },
    body: { messages: [{ role: 'user', content: 'A batch job' }] },
  })
  t.equal(native.status, 200)
  ids.push(native.headers['x-request-id']!)

  const usage = (by: string) => call(`${url}/api/usage?projectId=${seeded.projectId}&by=${by}`, { key: backend.key })
  const [byKey, byUser, byTag] = await Promise.all([usage('key'), usage('user'), usage('tag')])
  t.equal(byKey.status, 200)
  t.notOk('breakdown' in (await call(`${url}/api/usage?projectId=${seeded.projectId}`, { key: backend.key })).body, 'no breakdown unless asked')
  const wrong = await usage('model')
  t.equal(wrong.status, 400)
  t.match(wrong.body.message, /by must be key, user or tag/)

  // The ledger is read as each store keeps it: LMDB once the gateway has stopped (one process opens the store once).
  await gateway.close()
  const entries = databaseUrl === undefined ? lmdbEntries(t, dataDir, ids) : await postgresEntries(databaseUrl, ids)
  t.match(entries[0], { user: 'alice', tags: ['checkout', 'eu'], keyId: backend.id }, 'OpenAI: user and the tags header')
  t.match(entries[1], { user: 'alice', tags: ['checkout', 'eu'] })
  t.match(entries[2], { user: 'bob', tags: ['checkout'], keyId: backend.id }, 'Anthropic: metadata.user_id and the tags header')
  t.match(entries[3], { tags: ['nightly'], keyId: batch.id }, 'the native route: tags')
  t.notOk('user' in entries[3]!, 'the native route has no user field')
  t.ok(entries.every((entry) => entry.costMicros > 0))

  t.same(
    reported(byKey.body.breakdown, 'key'),
    expectedBreakdown(entries, (e) => [e.keyId]),
    'by key: exact',
  )
  t.same(
    reported(byUser.body.breakdown, 'user'),
    expectedBreakdown(entries, (e) => (e.user === undefined ? [] : [e.user])),
    'by user: exact',
  )
  t.same(
    reported(byTag.body.breakdown, 'tag'),
    expectedBreakdown(entries, (e) => e.tags ?? []),
    'by tag: exact, a request counting for each of its tags',
  )
  const backendRow = byKey.body.breakdown.find((row: { key: string }) => row.key === backend.id)
  t.match(backendRow, { name: 'backend', prefix: /^sk_prod_/ }, 'a key is shown by its id, prefix and name')
  t.notOk(JSON.stringify(byKey.body).includes(backend.key), 'never by its secret')
  const costs = byKey.body.breakdown.map((row: { costDollars: number }) => row.costDollars)
  t.same(
    costs,
    [...costs].sort((a, b) => b - a),
    'the costliest first',
  )
}

function lmdbEntries(t: Test, dataDir: string, ids: readonly string[]): LedgerEntry[] {
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  const ledger = createLedger(store.forPlugin('metering'))
  return ids.map((id) => ledger.entry(id)!)
}

async function postgresEntries(databaseUrl: string, ids: readonly string[]): Promise<LedgerEntry[]> {
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    const found = await db.query<{ id: string; entry: LedgerEntry }>('SELECT id, entry FROM metering_ledger WHERE id = ANY($1)', [ids])
    const byId = new Map(found.rows.map((row) => [row.id, row.entry]))
    return ids.map((id) => byId.get(id)!)
  } finally {
    await db.end()
  }
}

t.test('user, metadata.user_id and tags reach the ledger, and the breakdown adds them up exactly', (t) => spendScenario(t))

t.test('the same on PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await spendScenario(t, await server.freshDatabase(t))
})

t.test('a hostile x-gateway-tags is a clear 400 in each dialect', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  const body = { messages: [{ role: 'user', content: 'hi' }] }
  const cases: Array<[string, RegExp]> = [
    ['ok, <script>', /may hold only letters, digits/],
    [Array.from({ length: 11 }, (_, i) => `t${i}`).join(','), /at most 10 tags/],
    ['x'.repeat(65), /at most 64 characters/],
    ['a,'.repeat(400), /too long/],
  ]
  for (const [tags, message] of cases) {
    const res = await call(`${url}/api/ai/complete`, { key, body, headers: { 'x-gateway-tags': tags } })
    t.equal(res.status, 400, tags.slice(0, 20))
    t.match(res.body.message, message)
  }
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gateway-tags': 'bad tag!' } })
  const refused = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err)
  t.ok(refused instanceof OpenAI.BadRequestError, 'OpenAI: BadRequestError')
  const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0, defaultHeaders: { 'x-gateway-tags': 'bad tag!' } })
  const refusedToo = await anthropic.messages
    .create({ model: 'claude-3-haiku-20240307', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
    .catch((err: unknown) => err)
  t.ok(refusedToo instanceof Anthropic.BadRequestError, 'Anthropic: BadRequestError')
  const fine = await call(`${url}/api/ai/complete`, { key, body, headers: { 'x-gateway-tags': ' team:search , team:search,, env=prod ' } })
  t.equal(fine.status, 200, 'spaces, repeats and empty items are forgiven')
})
