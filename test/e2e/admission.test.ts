// No request may stall the others, whatever its content: bodies built to make token counting
// slow (long runs of CJK without a space, a single huge message) are counted in bounded pieces
// off the event loop, while another project's requests keep being answered at once; a project
// with no budget left is refused on the byte bound before any tokenizing.
import t from 'tap'
import { call } from '../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

/** Characters that each encode to several tokens and never merge: the worst case for the tokenizer. */
function cjk(length: number, seed: number): string {
  let state = seed
  let text = ''
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    text += String.fromCharCode(0x4e00 + (state % 20_000))
  }
  return text
}

t.test("adversarial bodies are answered while another project's health checks never stall", async (t) => {
  const dataDir = freshDataDir(t)
  const free = await seedProject(dataDir, { plan: 'free' })
  const big = await seedProject(dataDir, { plan: 'enterprise' })
  // Unlimited, so that probing for as long as the counts take never meets a rate limit.
  const other = await seedProject(dataDir, { plan: 'enterprise' })
  const { url } = await startTestGateway(t, { dataDir })
  // Warm the route and the pool's threads, so the first probe does not measure start-up.
  await call(`${url}/api/health`, { key: other.keys[0]!.key })
  // Built before the probing starts: making them takes this process's loop, which the gateway shares.
  const twentyRuns = JSON.stringify({
    messages: Array.from({ length: 20 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: cjk(16_000, i + 1) })),
  })
  const oneHugeMessage = (seed: number) => JSON.stringify({ messages: [{ role: 'user', content: cjk(120_000, seed) }] })
  const huge = [oneHugeMessage(7), oneHugeMessage(8)]

  let done = false
  const latencies: number[] = []
  const probing = (async () => {
    while (!done) {
      const started = performance.now()
      const answer = await call(`${url}/api/health`, { key: other.keys[0]!.key })
      latencies.push(performance.now() - started)
      t.equal(answer.status, 200)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()

  const started = performance.now()
  const answers = await Promise.all([
    call(`${url}/api/ai/complete`, { key: free.keys[0]!.key, raw: twentyRuns, headers: { 'cache-control': 'no-store' } }),
    ...huge.map((raw) => call(`${url}/api/ai/complete`, { key: big.keys[0]!.key, raw, headers: { 'cache-control': 'no-store' } })),
  ])
  const elapsed = performance.now() - started
  done = true
  await probing

  t.equal(answers[0]!.status, 200, '960 KB of CJK in 20 messages: the oldest are trimmed and the rest answered')
  t.ok(Number(answers[0]!.headers['x-gateway-context-trimmed']) > 0)
  for (const answer of answers.slice(1)) {
    t.equal(answer.status, 400, 'one 120,000-character message is more than the context window')
    t.equal(answer.body.error, 'Context too long')
  }
  t.ok(latencies.length >= 5, `${latencies.length} health checks ran meanwhile (${Math.round(elapsed)} ms)`)
  const sorted = latencies.toSorted((a, b) => a - b)
  const slowest = sorted.at(-1)!
  const median = sorted[Math.floor(sorted.length / 2)]!
  // Counting these bodies on the event loop would hold it for seconds. The bound follows the
  // machine's own pace (the median probe) with a floor, so that a loaded machine's pauses (up to
  // about 0.7 s seen at load 18) do not fail it and such a stall still does.
  const allowed = Math.max(1000, 20 * median)
  t.ok(slowest < allowed, `the slowest health check took ${slowest.toFixed(1)} ms (median ${median.toFixed(1)} ms, allowed ${allowed.toFixed(0)} ms)`)
})

t.test('a project with no budget left is refused on the byte bound, before any token is counted in the pool', async (t) => {
  const dataDir = freshDataDir(t)
  const broke = await seedProject(dataDir, { plan: 'enterprise', budgetDollars: 0 })
  const { url } = await startTestGateway(t, { dataDir })
  const body = {
    messages: [
      { role: 'user', content: cjk(16_000, 3) },
      { role: 'user', content: cjk(16_000, 4) },
    ],
  }
  const started = performance.now()
  const answer = await call(`${url}/api/ai/complete`, { key: broke.keys[0]!.key, body, headers: { 'cache-control': 'no-store' } })
  t.equal(answer.status, 402)
  t.equal(answer.body.error, 'Budget exceeded')
  const metrics = await call(`${url}/metrics`)
  t.notMatch(metrics.body, /tollgate_worker_task_duration_seconds_count\{task="countTexts"\} [1-9]/, 'no counting task ran')
  t.ok(performance.now() - started < 1000, 'refused at once')
})

t.test('text that spells a special token is counted as text, not refused or crashed on', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const answer = await call(`${url}/api/ai/complete`, {
    key: seeded.keys[0]!.key,
    body: { messages: [{ role: 'user', content: 'What does <|endoftext|> mean in <|im_start|>?' }] },
  })
  t.equal(answer.status, 200)
  t.ok(Number(answer.headers['x-gateway-prompt-tokens']) > 10)
})
