// `npm test`: runs the tap suite and ends with the plain line `N passed, N failed` (counting
// assertions), which CI summaries read. Extra arguments go to tap (e.g. a file to run alone);
// `--tier unit|e2e|shared|browser` runs one tier of the suite (tiers.ts); a folder runs the test
// files below it.
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { filesOf, testFiles, TIERS, type Tier } from './tiers.ts'

const isFolder = (arg: string) => !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() === true
const args = process.argv.slice(2).flatMap((arg) => (isFolder(arg) ? [...testFiles(arg)].sort() : [arg]))
const tierAt = args.indexOf('--tier')
if (tierAt !== -1) {
  const tier = args[tierAt + 1] as Tier
  if (!TIERS.includes(tier)) {
    process.stderr.write(`--tier takes one of ${TIERS.join(', ')}\n`)
    process.exit(2)
  }
  args.splice(tierAt, 2, ...filesOf(fileURLToPath(new URL('..', import.meta.url)), tier))
}

// A terminal gets the compact reporter; logs (CI) get plain TAP, which shows every test by name.
const reporter = process.stdout.isTTY ? 'terse' : 'tap'
const tap = spawn('tap', [`--reporter=${reporter}`, '--no-color', '--disable-coverage', ...args], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0' },
})

let tail = ''
tap.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString('utf8')).slice(-4096)
})

tap.on('close', (code) => {
  const summary = /# (\{[^\n]*total[^\n]*\})/.exec(tail)?.[1]
  const counts = summary === undefined ? undefined : (JSON.parse(summary.replace(/(\w+):/g, '"$1":')) as { pass?: number; fail?: number })
  const passed = counts?.pass ?? 0
  const failed = counts?.fail ?? (code === 0 ? 0 : 1)
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
  process.exit(code ?? 1)
})
