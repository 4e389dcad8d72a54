// `npm test`: runs the tap suite and ends with the plain line `N passed, N failed` (counting
// assertions), which CI summaries read. Extra arguments go to tap (e.g. a file to run alone).
import { spawn } from 'node:child_process'

// A terminal gets the compact reporter; logs (CI) get plain TAP, which shows every test by name.
const reporter = process.stdout.isTTY ? 'terse' : 'tap'
const tap = spawn('tap', [`--reporter=${reporter}`, '--no-color', '--disable-coverage', ...process.argv.slice(2)], {
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
