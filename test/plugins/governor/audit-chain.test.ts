// The audit trail: one hash chain per project that verifies while intact, reports the first
// changed or removed record, and never holds a sensitive value or prompt text.
import t, { type Test } from 'tap'
import { open } from 'lmdb'
import { openStore } from '../../../proxy/stores/store.ts'
import { lmdbAuditChain } from '../../../plugins/governor/store/lmdb/audit-chain.ts'
import { verifyAuditChain } from '../../../plugins/governor/state.ts'
import { hashOfRecord } from '../../../plugins/governor/logic/audit/chain-hash.ts'
import type { AuditRecord } from '../../../plugins/governor/store/types.ts'
import { call } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE, tollgate } from './fixtures.ts'

const auditVerify = async (dataDir: string, projectId: string) => tollgate(dataDir, 'audit', 'verify', '--project', projectId)

/** A project with governed requests of every kind (request, answer, validation), and another project beside it. */
async function recordedProject(t: Test) {
  const upstream = await startAnswerUpstream(`Noted. I will mail ${SENSITIVE.email}.`)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  await gw.ask('complete', 'First question')
  await gw.ask('chat', `Refund the card ${SENSITIVE.card} please`)
  await gw.ask('complete', `Use ${SENSITIVE.secret} to log in`)
  await call(`${gw.url}/api/governor/validate`, {
    key: gw.sk,
    body: { messages: [{ role: 'user', content: `Mail ${SENSITIVE.email}` }], governorMetadata: metadata },
  })
  const other = await governedGateway(t)
  await other.ask('complete', 'A request of another project')
  return gw
}

function auditRecords(dataDir: string, projectId: string) {
  const store = openStore(dataDir)
  const audit = store.forPlugin('governor').open<AuditRecord>('audit')
  const records = [...audit.getRange({ start: [projectId, 0], end: [projectId, Number.MAX_SAFE_INTEGER] })]
  return { store, audit, records }
}

t.test("every governed request, answer and validation extends the project's chain, which verifies", async (t) => {
  const gw = await recordedProject(t)
  const { store, records } = auditRecords(gw.dataDir, gw.projectId)
  t.teardown(() => store.close())
  t.same(
    records.map(({ value }) => value.kind),
    ['request', 'output', 'request', 'output', 'request', 'output', 'validate'],
  )
  t.same(
    records.map(({ value }) => value.seq),
    [1, 2, 3, 4, 5, 6, 7],
  )
  t.equal(records[1]!.value.prevHash, records[0]!.value.hash)
  t.same(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), { intact: true, records: 7 })
  const cli = await auditVerify(gw.dataDir, gw.projectId)
  t.equal(cli.code, 0)
  t.match(cli.stdout, `audit chain of ${gw.projectId} is intact (7 records)`)
})

t.test('editing a stored record breaks the chain at that record, and the CLI exits 1 naming it', async (t) => {
  const gw = await recordedProject(t)
  const { store, audit, records } = auditRecords(gw.dataDir, gw.projectId)
  t.teardown(() => store.close())
  const { key, value } = records[2]!
  await audit.put(key, { ...value, score: 0, decision: 'approved' })
  t.match(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), {
    intact: false,
    records: 2,
    brokenAt: value.id,
    reason: /contents do not match its hash/,
  })
  const cli = await auditVerify(gw.dataDir, gw.projectId)
  t.equal(cli.code, 1)
  t.match(cli.stdout, `broken at ${value.id}`)
})

t.test('a record rewritten with a fresh hash still breaks the chain at the record after it', async (t) => {
  const gw = await recordedProject(t)
  const { store, audit, records } = auditRecords(gw.dataDir, gw.projectId)
  t.teardown(() => store.close())
  const { key, value } = records[2]!
  const { hash: _old, ...rest } = { ...value, score: 0 }
  await audit.put(key, { ...rest, hash: hashOfRecord(rest) })
  t.match(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), {
    intact: false,
    brokenAt: records[3]!.value.id,
    reason: /previous-record hash/,
  })
})

t.test('removing a record from the middle or the end of the chain is detected', async (t) => {
  const gw = await recordedProject(t)
  const { store, audit, records } = auditRecords(gw.dataDir, gw.projectId)
  t.teardown(() => store.close())
  await audit.remove(records.at(-1)!.key)
  t.match(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), { intact: false, reason: /removed from its end/ })
  await audit.remove(records[1]!.key)
  t.match(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), {
    intact: false,
    brokenAt: records[2]!.value.id,
    reason: /expected record 2/,
  })
})

t.test('an unknown project has an empty, intact chain; a project id is required', async (t) => {
  const gw = await recordedProject(t)
  t.equal((await auditVerify(gw.dataDir, 'proj_unknown')).code, 0)
  t.match(await tollgate(gw.dataDir, 'audit', 'verify'), { code: 2, stderr: /--project is required/ })
})

t.test('no database in the store holds a sensitive value or the prompt text, in any form', async (t) => {
  const upstream = await startAnswerUpstream('Thanks, all noted.')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  const prompt = `Please charge ${SENSITIVE.card}, mail ${SENSITIVE.email} and deploy with ${SENSITIVE.secret}`
  t.equal((await gw.ask('complete', prompt)).status, 200)
  t.equal((await gw.ask('chat', prompt, { governorMetadata: { ...metadata, recipientCountry: 'FR', recipientEmail: SENSITIVE.email } })).status, 200)
  await call(`${gw.url}/api/governor/validate`, { key: gw.pk, body: { messages: [{ role: 'user', content: prompt }], governorMetadata: metadata } })
  const strict = await governedGateway(t, { changes: { governor: { strictMode: true } } })
  t.equal((await strict.ask('complete', prompt)).status, 403)
  const alerts = await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })
  t.ok(alerts.body.data.length > 0, 'the requests did leave records')

  const needles = [SENSITIVE.card, SENSITIVE.card.replaceAll(' ', ''), SENSITIVE.email, SENSITIVE.secret, 'Please charge', 'deploy with'].map((s) =>
    Buffer.from(s),
  )
  const env = open({ path: gw.dataDir, maxDbs: 64, compression: false, encoding: 'binary', keyEncoding: 'binary' })
  t.teardown(() => env.close())
  const names = [...env.getKeys()].map((name) =>
    Buffer.from(name as Uint8Array)
      .toString('utf8')
      .replace(/\0$/, ''),
  )
  t.ok(names.includes('governor/audit') && names.includes('governor/violations') && names.includes('cache/answers'))
  let entries = 0
  const hits: string[] = []
  for (const name of names) {
    const db = env.openDB<Buffer, Buffer>({ name, encoding: 'binary', keyEncoding: 'binary' })
    for (const { key, value } of db.getRange()) {
      entries++
      for (const bytes of [Buffer.from(key), Buffer.from(value)]) {
        for (const needle of needles) if (bytes.includes(needle)) hits.push(`${name} holds "${needle.toString()}"`)
      }
    }
  }
  t.ok(entries > 20, `read ${entries} entries across ${names.length} databases`)
  t.same(hits, [])
})
