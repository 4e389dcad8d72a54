// CPU cost of one scanContent call on 16 KB texts of different kinds, on this thread (no pool):
// the Governor rows' support message, source code with assignments and tokens, a log of
// base64 and hex blobs (the decoder's worst case: every run is a candidate), and plain prose.
//
//   node bench/scan-cost.ts [--runs N]
import { parseArgs } from 'node:util'
import { scanContent } from '../workers/scan-content.ts'
import { governorMessage } from './governor-payload.ts'

const SIZE = 16 * 1024

function repeatTo(unit: (i: number) => string, size: number): string {
  const parts: string[] = []
  let length = 0
  for (let i = 0; length < size; i++) {
    const part = unit(i)
    parts.push(part)
    length += part.length
  }
  return parts.join('').slice(0, size)
}

// A deterministic pseudo-random generator, so every run scans the same bytes.
function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

function randomString(next: () => number, alphabet: string, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)]
  return out
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const next = lcg(7)

const TEXTS: Readonly<Record<string, string>> = {
  'support message': governorMessage(SIZE),
  'source code': repeatTo(
    (i) =>
      `const retryCount${i} = ${i % 7}\nconst cacheKey${i} = buildKey(userId, "orders")\nheaders["X-Request-Id"] = "${randomString(next, ALNUM, 12)}"\nif (config.timeoutMs > ${i}) return fetchPage(cursor)\n`,
    SIZE,
  ),
  'base64 and hex log': repeatTo(
    (i) =>
      `${i % 2 === 0 ? Buffer.from(`event ${i} processed for order ${i * 31} at stage ${i % 5}`).toString('base64') : Buffer.from(randomString(next, ALNUM, 24)).toString('hex')} `,
    SIZE,
  ),
  prose: repeatTo((i) => `The committee met on day ${i} to review the quarterly figures, and agreed to publish a short summary for the members. `, SIZE),
}

// CPU time rather than wall time: the machine may be shared, and waiting for a core is not cost.
function measure(text: string, runs: number): { cpuMs: number; fastestMs: number } {
  for (let i = 0; i < 20; i++) scanContent({ text })
  let fastest = Infinity
  const before = process.cpuUsage()
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    scanContent({ text })
    fastest = Math.min(fastest, performance.now() - started)
  }
  const used = process.cpuUsage(before)
  return { cpuMs: (used.user + used.system) / 1000 / runs, fastestMs: fastest }
}

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' } } })
const runs = Number(values.runs)
for (const [name, text] of Object.entries(TEXTS)) {
  const { cpuMs, fastestMs } = measure(text, runs)
  console.log(`${name.padEnd(20)} ${String(text.length).padStart(6)} chars  CPU ${cpuMs.toFixed(2)} ms per scan, fastest ${fastestMs.toFixed(2)} ms`)
}
