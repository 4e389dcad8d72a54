import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { leftoverOf, ruleOf, ruleOfProjectFile } from '../../bench/stages.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 })

t.test('every source file of the gateway has a line in the stage table', async (t) => {
  const files = ['proxy', 'plugins', 'workers'].flatMap((dir) =>
    (readdirSync(`${ROOT}/${dir}`, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => `${dir}/${f}`),
  )
  t.ok(files.length > 100, `${files.length} files found`)
  const unmapped = files.filter((file) => ruleOfProjectFile(file, '') === 'unmapped')
  t.same(unmapped, [], 'add these to bench/stages.ts')
})

t.test('files keep their stage when they move into a wing of proxy/', async (t) => {
  for (const wing of ['', 'http/', 'pipeline/', 'stores/', 'kit/']) {
    t.equal(ruleOfProjectFile(`proxy/${wing}server.ts`, 'handle'), 'accept', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}validate.ts`, 'validate'), 'validation', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}sse.ts`, 'write'), 'rendering', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}ai-call.ts`, 'callModel'), 'model', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}ai-call.ts`, 'streamAnswer'), 'rendering', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}store.ts`, 'open'), 'caller', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}events/index.ts`, 'openOutboxes'), 'caller', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}dialects/openai/request.ts`, 'parse'), 'validation', wing)
    t.equal(ruleOfProjectFile(`proxy/${wing}dialects/anthropic/format.ts`, 'json'), 'rendering', wing)
  }
})

t.test('plugins by their folder, workers by file, the rest of the project off the path', async (t) => {
  t.equal(ruleOfProjectFile('plugins/rate-limit/logic/token-bucket.ts', 'take'), 'limits')
  t.equal(ruleOfProjectFile('plugins/governor/logic/stream/stream-guard.ts', 'chunk'), 'governor')
  t.equal(ruleOfProjectFile('plugins/router/providers/chat-completions.ts', 'complete'), 'model')
  t.equal(ruleOfProjectFile('plugins/a-new-plugin/index.ts', 'setup'), 'unmapped')
  t.equal(ruleOfProjectFile('workers/scan/email.ts', 'detect'), 'governor')
  t.equal(ruleOfProjectFile('workers/count-tokens.ts', 'countTokens'), 'caller')
  t.equal(ruleOfProjectFile('bench/targets/gateway.ts', ''), 'offPath')
})

t.test('packages claim a stage only when they serve one alone', async (t) => {
  t.same(ruleOf(frame('info', `file://${ROOT}/node_modules/pino/lib/proto.js`), ROOT), { rule: 'log' })
  t.same(ruleOf(frame('redact', `file://${ROOT}/node_modules/@pinojs/redact/index.js`), ROOT), { rule: 'log' })
  t.same(ruleOf(frame('safeParse', `file://${ROOT}/node_modules/zod/v4/core/parse.js`), ROOT), { rule: 'validation' })
  t.same(ruleOf(frame('request', `file://${ROOT}/node_modules/undici/lib/api/api-request.js`), ROOT), { rule: undefined })
  t.same(ruleOf(frame('emit', 'node:events'), ROOT), { rule: undefined })
  t.same(ruleOf(frame('handle', `file://${ROOT}/proxy/http/server.ts`), ROOT), { rule: 'accept', project: 'proxy/http/server.ts' })
  t.equal(leftoverOf(frame('_resume', `file://${ROOT}/node_modules/undici/lib/dispatcher/client.js`), ROOT), 'otherUndici')
  t.equal(leftoverOf(frame('pack', `file://${ROOT}/node_modules/msgpackr/pack.js`), ROOT), 'otherStore')
  t.equal(leftoverOf(frame('(garbage collector)', ''), ROOT), 'otherGc')
  t.equal(leftoverOf(frame('emit', 'node:events'), ROOT), undefined)
})
