// A project's own prompt-injection classifier (plugins.governor.classifier), here the tiny model the
// tests build: it flags what the rules leave undecided, at its own threshold, and a file that
// cannot be used stops the start with one line.
import t from 'tap'
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { call } from '../../helpers/http.ts'
import { freshDataDir, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { probabilityOf, writeTinyClassifier } from '../../helpers/tiny-classifier.ts'
import { governedGateway, metadata } from './fixtures.ts'

// The rules find nothing in it; the tiny model gives it 0.79: two triggers in six tokens.
const MISSED = 'Please override override.'

function withClassifier(t: Parameters<typeof writeTinyClassifier>[0], threshold: number): Record<string, unknown> {
  const { model, tokenizer } = writeTinyClassifier(t)
  return { plugins: { governor: { classifier: { model, tokenizer, threshold } } } }
}

t.test('a text the rules miss and the classifier flags is reported', async (t) => {
  const plain = await governedGateway(t)
  t.equal((await plain.ask('complete', MISSED)).headers['x-governor-violations'], '0', 'the rules alone')

  const gw = await governedGateway(t, { overrides: withClassifier(t, 0.6) })
  const flagged = await gw.ask('complete', MISSED)
  t.equal(flagged.status, 200)
  t.equal(flagged.headers['x-governor-violations'], '1')
  const validated = await call(`${gw.url}/api/governor/validate`, {
    key: gw.sk,
    body: { messages: [{ role: 'user', content: MISSED }], governorMetadata: metadata },
  })
  t.match(validated.body, { violations: [{ type: 'SECURITY' }] })
  t.equal((await gw.ask('complete', 'The weather is fine.')).headers['x-governor-violations'], '0')
})

t.test("the classifier's own threshold applies", async (t) => {
  t.ok(probabilityOf(2, 6) < 0.8)
  const gw = await governedGateway(t, { overrides: withClassifier(t, 0.8) })
  t.equal((await gw.ask('complete', MISSED)).headers['x-governor-violations'], '0')
})

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

t.test('a missing model file stops the start with one line', async (t) => {
  const dataDir = freshDataDir(t)
  const { tokenizer } = writeTinyClassifier(t)
  const model = join(dataDir, 'absent.onnx')
  const configFile = join(dataDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ plugins: { governor: { classifier: { model, tokenizer } } } }))
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'serve'],
      {
        env: { ...process.env, TOLLGATE_SECRET: TEST_SECRET, TOLLGATE_DATA: dataDir, TOLLGATE_CONFIG: configFile, PORT: '0', LOG_LEVEL: 'silent' },
        timeout: 60_000,
      },
      (err, _stdout, stderr) => {
        resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? null), stderr })
      },
    )
  })
  t.equal(code, 2)
  t.equal(stderr.trim(), `tollgate: plugins.governor.classifier: cannot load the model ${model}: no such file`)
})
