// Which texts are scanned inline and which in the worker pool, and how pool failures surface.
import t from 'tap'
import { OverloadedError } from '../../../proxy/errors.ts'
import type { WorkerPool } from '../../../proxy/pool.ts'
import { scanTexts } from '../../../plugins/governor/scan-texts.ts'
import { scanContent } from '../../../workers/scan-content.ts'

/** A pool that runs the scan itself and records what it was given; `fail` makes a call reject. */
function recordingPool(fail?: (call: number) => Error | undefined) {
  const texts: string[] = []
  const signals: AbortSignal[] = []
  const pool = {
    async run(_task: string, input: { text: string }, signal?: AbortSignal) {
      texts.push(input.text)
      if (signal !== undefined) signals.push(signal)
      const error = fail?.(texts.length)
      if (error !== undefined) throw error
      await new Promise((resolve) => setImmediate(resolve))
      return scanContent(input)
    },
    queueSize: 0,
    utilization: 0,
    close: async () => undefined,
  } as unknown as WorkerPool
  return { pool, texts, signals }
}

const limits = { inlineMaxChars: 20, inlineBudgetChars: 30 }
const mail = 'mail ana@example.org'

t.test('short texts are scanned inline until the budget is spent; long texts and the rest go to the pool', async (t) => {
  const { pool, texts } = recordingPool()
  const input = ['a'.repeat(10), mail, 'x'.repeat(21), 'b'.repeat(15)]
  const scanned = await scanTexts(input, pool, limits, new AbortController().signal)
  t.same(texts, ['x'.repeat(21), 'b'.repeat(15)], 'the 21-char text is too long; the last would overrun the 30-char budget')
  t.equal(scanned.pooled, 2)
  t.same(scanned.findings.map((f) => f.map((x) => x.type)), [[], ['EMAIL_ADDRESS'], [], []])
  t.same(scanned.findings[1]!.map((f) => [f.start, f.end]), [[5, 20]], 'offsets index into each text')
})

t.test('a full pool queue rejects the scan with OverloadedError and cancels the other tasks of the call', async (t) => {
  const { pool, signals } = recordingPool((call) => (call === 2 ? new OverloadedError('The worker pool queue is full; retry shortly.') : undefined))
  const long = ['x'.repeat(40), 'y'.repeat(40), 'z'.repeat(40)]
  await t.rejects(scanTexts(long, pool, limits, new AbortController().signal), OverloadedError)
  t.equal(signals.length, 3)
  t.ok(signals.every((s) => s.aborted), 'every task of the call was told to stop')
})

t.test('texts that all fit are scanned without touching the pool', async (t) => {
  const { pool, texts } = recordingPool()
  const scanned = await scanTexts(['hi', 'there'], pool, limits, new AbortController().signal)
  t.same(texts, [])
  t.equal(scanned.pooled, 0)
})
