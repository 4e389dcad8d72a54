// `npm run eval:governor` says in one line what it needs when its data is missing or malformed,
// and exits non-zero, instead of a stack trace.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshDataDir } from '../helpers/start-gateway.ts'

const SCRIPT = fileURLToPath(new URL('../../eval/governor.ts', import.meta.url))

function run(file: string) {
  return spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, PII_EVAL_FILE: file }, encoding: 'utf8' })
}

t.test('a missing data file: one line naming the file and PII_EVAL_FILE, exit 1', async (t) => {
  const missing = join(freshDataDir(t), 'absent.jsonl')
  const result = run(missing)
  t.equal(result.status, 1)
  t.equal(
    result.stderr,
    `eval:governor: PII_EVAL_FILE names ${missing}, which does not exist; point it at a JSONL file of labelled cases, or unset it to use ../shared/data/pii_eval.jsonl\n`,
  )
  t.equal(result.stdout, '')
})

t.test('a malformed line: one line naming it, exit 1', async (t) => {
  const file = join(freshDataDir(t), 'bad.jsonl')
  writeFileSync(file, '{"id":"a"}\n')
  const result = run(file)
  t.equal(result.status, 1)
  t.match(result.stderr, /^eval:governor: line 1 of .*bad\.jsonl is not a labelled case: \S+ .*\n$/)
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace')
})

t.test('a small valid file is scored', async (t) => {
  const file = join(freshDataDir(t), 'ok.jsonl')
  const text = 'Mail me at jane.doe@example.com please'
  writeFileSync(
    file,
    `${JSON.stringify({ id: 'c1', source: 'test', task: 'pii', target_types: ['EMAIL_ADDRESS'], text, entities: [{ type: 'EMAIL_ADDRESS', start: 11, end: 31 }] })}\n`,
  )
  const result = run(file)
  t.equal(result.status, 0, result.stderr)
  t.match(result.stdout, /EMAIL_ADDRESS/)
})
