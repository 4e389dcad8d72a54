import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { pinOption, positive, UsageError } from '../../bench/command-line.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

function run(script: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
  return { status: result.status, stderr: result.stderr, stdout: result.stdout }
}

t.test('a mistake on a bench command line is one line and exit code 2, before anything starts', async (t) => {
  const cases = [
    { script: 'bench/run.ts', args: ['--bogus'], said: /^bench: Unknown option '--bogus'/ },
    { script: 'bench/run.ts', args: ['--repeat', '0'], said: /^bench: --repeat must be a positive number, got "0"/ },
    { script: 'bench/run.ts', args: ['--only', 'no such row at all'], said: /^bench: --only no such row at all: no row matches/ },
    { script: 'bench/stage-costs.ts', args: ['--rows', 'json,xml'], said: /^bench:stages: --rows takes json, stream, got "xml"/ },
    { script: 'bench/stage-costs.ts', args: ['--pin', 'sometimes'], said: /^bench:stages: --pin must be auto or off, got "sometimes"/ },
    { script: 'bench/profile.ts', args: ['--row', 'nope'], said: /^bench:profile: --row must be one of json-miss, / },
  ]
  for (const { script, args, said } of cases) {
    const { status, stderr, stdout } = run(script, args)
    t.equal(status, 2, `${script} ${args.join(' ')}: exit code`)
    t.match(stderr, said, `${script} ${args.join(' ')}: what it says`)
    t.equal(stderr.trim().split('\n').length, 1, `${script} ${args.join(' ')}: one line, no stack`)
    t.equal(stdout, '')
  }
})

t.test('values are checked where they are read', async (t) => {
  t.equal(positive('2.5', '--duration'), 2.5)
  t.throws(() => positive('-1', '--duration'), /--duration must be a positive number, got "-1"/)
  t.throws(() => positive('ten', '--duration'), /--duration must be a positive number, got "ten"/)
  t.equal(pinOption('off'), 'off')
  let mistake: unknown
  try {
    pinOption('')
  } catch (err) {
    mistake = err
  }
  t.ok(mistake instanceof UsageError, 'a usage mistake, said in one line')
})
