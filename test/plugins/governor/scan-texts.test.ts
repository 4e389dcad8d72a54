// Which texts are scanned inline and which in the worker pool, and how pool failures surface.
import t from 'tap'
import { OverloadedError } from '../../../proxy/pipeline/errors.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import { MAX_BATCHES_PER_CALL, scanTexts } from '../../../plugins/governor/scan-texts.ts'
import { scanContentBatch } from '../../../workers/scan-content.ts'

/** A pool that runs the scan itself and records what it was given; `fail` makes a call reject. */
function recordingPool(fail?: (call: number) => Error | undefined) {
  const texts: string[] = []
  const batches: string[][] = []
  const signals: AbortSignal[] = []
  const pool = {
    async run(task: string, input: { texts: string[] }, signal?: AbortSignal) {
      if (task !== 'scanContentBatch') throw new Error(`unexpected task ${task}`)
      texts.push(...input.texts)
      batches.push(input.texts)
      if (signal !== undefined) signals.push(signal)
      const error = fail?.(batches.length)
      if (error !== undefined) throw error
      await new Promise((resolve) => setImmediate(resolve))
      return scanContentBatch(input)
    },
    queueSize: 0,
    utilization: 0,
    close: async () => undefined,
  } as unknown as WorkerPool
  return { pool, texts, batches, signals }
}

const limits = { inlineMaxChars: 20, inlineBudgetChars: 30, learned: false }
const mail = 'mail ana@example.org'

t.test('short texts are scanned inline until the budget is spent; long texts and the rest go to the pool', async (t) => {
  const { pool, texts } = recordingPool()
  const input = ['a'.repeat(10), mail, 'x'.repeat(21), 'b'.repeat(15)]
  const scanned = await scanTexts(input, pool, limits, new AbortController().signal)
  t.same(texts, ['x'.repeat(21), 'b'.repeat(15)], 'the 21-char text is too long; the last would overrun the 30-char budget')
  t.equal(scanned.pooled, 2)
  t.same(
    scanned.findings.map((f) => f.map((x) => x.type)),
    [[], ['EMAIL_ADDRESS'], [], []],
  )
  t.same(
    scanned.findings[1]!.map((f) => [f.start, f.end]),
    [[5, 20]],
    'offsets index into each text',
  )
})

t.test('a full pool queue rejects the scan with OverloadedError and cancels the other tasks of the call', async (t) => {
  const { pool, signals } = recordingPool((call) => (call === 2 ? new OverloadedError('The worker pool queue is full; retry shortly.') : undefined))
  const long = ['x'.repeat(40_000), 'y'.repeat(40_000), 'z'.repeat(40_000)]
  await t.rejects(scanTexts(long, pool, limits, new AbortController().signal), OverloadedError)
  t.equal(signals.length, 3, 'three texts of 40 000 characters make three batches')
  t.ok(
    signals.every((s) => s.aborted),
    'every task of the call was told to stop',
  )
})

t.test('texts that all fit are scanned without touching the pool', async (t) => {
  const { pool, texts } = recordingPool()
  const scanned = await scanTexts(['hi', 'there'], pool, limits, new AbortController().signal)
  t.same(texts, [])
  t.equal(scanned.pooled, 0)
})

t.test('many long texts take a few pool tasks, not one each, and every text keeps its own findings', async (t) => {
  const { pool, batches } = recordingPool()
  const input = Array.from({ length: 600 }, (_, i) => `${'filler words here. '.repeat(60)} write to user${i}@example.org`)
  const scanned = await scanTexts(input, pool, limits, new AbortController().signal)
  t.ok(batches.length <= MAX_BATCHES_PER_CALL, `${batches.length} tasks for 600 texts`)
  t.ok(batches.length > 1, 'more than one, so the threads share the work')
  t.equal(batches.flat().length, 600)
  t.equal(scanned.pooled, 600)
  scanned.findings.forEach((found, i) => {
    const email = found.filter((f) => f.type === 'EMAIL_ADDRESS')
    t.equal(email.length === 1 ? input[i]!.slice(email[0]!.start, email[0]!.end) : '', `user${i}@example.org`)
  })
})

t.test('small pooled texts are grouped until a batch holds enough work', async (t) => {
  const { pool, batches } = recordingPool()
  await scanTexts(
    Array.from({ length: 10 }, () => 'x'.repeat(100)),
    pool,
    { inlineMaxChars: 20, inlineBudgetChars: 30, learned: false },
    new AbortController().signal,
  )
  t.equal(batches.length, 1, 'ten texts of 100 characters are one task')
})

t.test("with a project's own classifier every text goes to the pool, which runs it in the same task", async (t) => {
  const inputs: unknown[] = []
  const pool = {
    async run(_task: string, input: unknown) {
      inputs.push(input)
      return [[], []]
    },
  } as unknown as WorkerPool
  const classifier = { model: '/m.onnx', tokenizer: '/t.json', threshold: 0.5, injectionLabel: 1, maxTokens: undefined }
  const scanned = await scanTexts(['hi', ''], pool, { ...limits, classifier }, new AbortController().signal)
  t.equal(scanned.pooled, 2)
  t.same(inputs, [{ texts: ['hi', ''], learned: false, classifier }])
})
