import t from 'tap'
import { z } from 'zod'
import { assertPluginRules, buildChain } from '../../../proxy/pipeline/chain.ts'
import { ConfigError } from '../../../proxy/config.ts'
import { createMetrics } from '../../../proxy/metrics.ts'
import type { CompletionResult } from '../../../proxy/pipeline/completion.ts'
import type { CompletedContext } from '../../../proxy/pipeline/context.ts'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import type { GatewayPlugin, PluginHooks } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { StreamStop } from '../../../proxy/pipeline/stream-stop.ts'
import { makeContext } from '../../helpers/make-context.ts'

function plugin(name: string, order: number, extra: Partial<GatewayPlugin> = {}): GatewayPlugin {
  return { name, order, gates: ['ai', 'keyed'], schema: z.object({}), setup: () => ({}), ...extra }
}

const completed = (ctx: ReturnType<typeof makeContext>) =>
  Object.assign(ctx, { outcome: { status: 200, reason: 'ok' as const, durationMs: 1 } }) as CompletedContext

t.test('onRequest hooks run in ascending order regardless of registration order', async (t) => {
  const seen: string[] = []
  const hook = (name: string): PluginHooks => ({ onRequest: () => void seen.push(name) })
  const chain = buildChain(
    [
      { plugin: plugin('c', 300), hooks: hook('c') },
      { plugin: plugin('a', 100), hooks: hook('a') },
      { plugin: plugin('b', 200), hooks: hook('b') },
    ],
    createMetrics(),
  )
  t.equal(await chain.runRequest(makeContext()), undefined)
  t.same(seen, ['a', 'b', 'c'])
})

t.test('a returned Reply skips later onRequest hooks but onComplete still runs for every plugin', async (t) => {
  const seen: string[] = []
  const chain = buildChain(
    [
      { plugin: plugin('a', 100), hooks: { onRequest: () => Reply.json({ stop: true }, 418), onComplete: () => void seen.push('a done') } },
      { plugin: plugin('b', 200), hooks: { onRequest: () => void seen.push('b'), onComplete: () => void seen.push('b done') } },
    ],
    createMetrics(),
  )
  const ctx = makeContext()
  const stop = await chain.runRequest(ctx)
  t.match(stop, { stoppedBy: 'a', reply: { kind: 'json', status: 418 } })
  chain.runComplete(completed(ctx))
  t.same(seen, ['a done', 'b done'])
})

t.test('a fail-open plugin that throws is skipped; a fail-closed one answers with its error or a 500', async (t) => {
  const metrics = createMetrics()
  const boom = () => {
    throw new Error('boom')
  }
  const open = buildChain([{ plugin: plugin('a', 100, { failOpen: true }), hooks: { onRequest: boom } }], metrics)
  t.equal(await open.runRequest(makeContext()), undefined)
  const closed = buildChain([{ plugin: plugin('a', 100), hooks: { onRequest: boom } }], metrics)
  t.match(await closed.runRequest(makeContext()), { reply: { kind: 'error', error: { status: 500, error: 'Internal server error' } } })
  const own = buildChain(
    [
      {
        plugin: plugin('a', 100),
        hooks: {
          onRequest: () => {
            throw new InvalidRequestError('Bad', 'bad')
          },
        },
      },
    ],
    metrics,
  )
  t.match(await own.runRequest(makeContext()), { reply: { kind: 'error', error: { status: 400 } } })
  t.match(await metrics.registry.getSingleMetricAsString('tollgate_plugin_failures_total'), /plugin="a"} 3/)
})

t.test('hooks run only on the route kinds their plugin gates', async (t) => {
  const seen: string[] = []
  const chain = buildChain(
    [
      { plugin: plugin('ai-only', 100, { gates: ['ai'] }), hooks: { onRequest: () => void seen.push('ai-only') } },
      { plugin: plugin('both', 200), hooks: { onRequest: () => void seen.push('both') } },
    ],
    createMetrics(),
  )
  await chain.runRequest(makeContext({ route: { name: 'health', kind: 'keyed', keyTypes: ['sk'], stream: false } }))
  t.same(seen, ['both'])
})

t.test('onStreamChunk hooks replace chunks in order', async (t) => {
  const chain = buildChain(
    [
      { plugin: plugin('a', 100), hooks: { onStreamChunk: (_ctx, c) => ({ text: c.text.toUpperCase() }) } },
      { plugin: plugin('b', 200), hooks: { onStreamChunk: (_ctx, c) => ({ text: `${c.text}!` }) } },
    ],
    createMetrics(),
  )
  t.same(chain.runStreamChunk(makeContext(), { text: 'hi' }), { text: 'HI!' })
})

t.test("a chunk hook's promise is awaited before the hooks after it; without one the chunk passes synchronously", async (t) => {
  const chain = buildChain(
    [
      { plugin: plugin('slow', 100), hooks: { onStreamChunk: (_ctx, c) => (c.text.length > 3 ? Promise.resolve({ text: c.text.toUpperCase() }) : undefined) } },
      { plugin: plugin('b', 200), hooks: { onStreamChunk: (_ctx, c) => ({ text: `${c.text}!` }) } },
    ],
    createMetrics(),
  )
  t.same(chain.runStreamChunk(makeContext(), { text: 'hi' }), { text: 'hi!' }, 'no promise when no hook returned one')
  const long = chain.runStreamChunk(makeContext(), { text: 'hello' })
  t.ok(long instanceof Promise)
  t.same(await long, { text: 'HELLO!' })
})

t.test(
  "a rejected chunk or end promise is handled as a throw: a StreamStop as it is, another failure stops a fail-closed plugin's stream and skips a fail-open one",
  async (t) => {
    const metrics = createMetrics()
    const stop = new StreamStop(new InvalidRequestError('Stopped', 'stopped'))
    const stopping = buildChain(
      [{ plugin: plugin('a', 100), hooks: { onStreamChunk: () => Promise.reject(stop), onStreamEnd: () => Promise.reject(stop) } }],
      metrics,
    )
    await t.rejects(stopping.runStreamChunk(makeContext(), { text: 'x' }) as Promise<unknown>, stop)
    await t.rejects(stopping.runStreamEnd(makeContext(), []) as Promise<unknown>, stop)
    const boom = () => Promise.reject(new Error('boom'))
    const closed = buildChain([{ plugin: plugin('a', 100), hooks: { onStreamChunk: boom, onStreamEnd: boom } }], metrics)
    for (const run of [() => closed.runStreamChunk(makeContext(), { text: 'x' }), () => closed.runStreamEnd(makeContext(), [])]) {
      const thrown = await Promise.resolve(run()).then(
        () => undefined,
        (err: unknown) => err,
      )
      t.ok(thrown instanceof StreamStop)
      t.match(await (thrown as StreamStop).error, { status: 500, error: 'Internal server error' })
    }
    const open = buildChain(
      [
        { plugin: plugin('a', 100, { failOpen: true }), hooks: { onStreamChunk: boom, onStreamEnd: boom } },
        { plugin: plugin('b', 200), hooks: { onStreamChunk: (_ctx, c) => ({ text: `${c.text}!` }) } },
      ],
      metrics,
    )
    t.same(await open.runStreamChunk(makeContext(), { text: 'x' }), { text: 'x!' })
    t.same(await open.runStreamEnd(makeContext(), []), { text: '', toolCalls: [] })
  },
)

t.test("a hook may hold text back; what it releases at the end passes the later plugins' chunk hooks", async (t) => {
  let held = ''
  const chain = buildChain(
    [
      {
        plugin: plugin('holder', 100),
        hooks: {
          onStreamChunk: (_ctx, c) => {
            held += c.text
            const cut = held.lastIndexOf(' ') + 1
            const out = held.slice(0, cut)
            held = held.slice(cut)
            return { text: out }
          },
          onStreamEnd: () => ({ text: held }),
        },
      },
      { plugin: plugin('upper', 200), hooks: { onStreamChunk: (_ctx, c) => ({ text: c.text.toUpperCase() }) } },
      { plugin: plugin('tail', 300), hooks: { onStreamEnd: () => ({ text: '.' }) } },
    ],
    createMetrics(),
  )
  const ctx = makeContext()
  t.same(chain.runStreamChunk(ctx, { text: 'hello wo' }), { text: 'HELLO ' })
  t.same(chain.runStreamChunk(ctx, { text: 'rld' }), { text: '' })
  t.same(await chain.runStreamEnd(ctx, []), { text: 'WORLD.', toolCalls: [] })
})

t.test('tool calls are held when one hook asks, and onStreamEnd hooks see the whole calls', async (t) => {
  const seen: unknown[] = []
  const chain = buildChain(
    [
      { plugin: plugin('quiet', 100), hooks: { holdsStreamToolCalls: () => false } },
      {
        plugin: plugin('holder', 200),
        hooks: { holdsStreamToolCalls: (ctx) => ctx.requestId !== 'free', onStreamEnd: (_ctx, calls) => void seen.push(calls) },
      },
    ],
    createMetrics(),
  )
  t.equal(chain.holdsStreamToolCalls(makeContext()), true)
  t.equal(chain.holdsStreamToolCalls(makeContext({ requestId: 'free' })), false)
  t.equal(buildChain([], createMetrics()).holdsStreamToolCalls(makeContext()), false)
  const calls = [{ id: 'call_1', name: 'lookup', arguments: '{"q":1}' }]
  t.same(await chain.runStreamEnd(makeContext(), calls), { text: '', toolCalls: calls })
  t.same(seen, [calls])
})

t.test("an onStreamEnd hook may rewrite the held calls' arguments; the hooks after it see the rewritten calls", async (t) => {
  const seen: unknown[] = []
  const chain = buildChain(
    [
      {
        plugin: plugin('masker', 100),
        hooks: { onStreamEnd: (_ctx, calls) => ({ text: 'held', arguments: calls.map((call) => call.arguments.replace('secret', '***')) }) },
      },
      { plugin: plugin('after', 200), hooks: { onStreamEnd: (_ctx, calls) => void seen.push(calls.map((call) => call.arguments)) } },
    ],
    createMetrics(),
  )
  const calls = [
    { index: 0, id: 'call_1', name: 'lookup', arguments: '{"q":"secret"}' },
    { index: 2, id: 'call_2', name: 'lookup', arguments: '{"q":1}' },
  ]
  t.same(await chain.runStreamEnd(makeContext(), calls), {
    text: 'held',
    toolCalls: [
      { index: 0, id: 'call_1', name: 'lookup', arguments: '{"q":"***"}' },
      { index: 2, id: 'call_2', name: 'lookup', arguments: '{"q":1}' },
    ],
  })
  t.same(seen, [['{"q":"***"}', '{"q":1}']])
  t.equal(calls[0]!.arguments, '{"q":"secret"}', 'the calls given are left as they were')
})

t.test('a StreamStop ends the stream; a fail-closed hook that fails stops it too, a fail-open one is skipped', async (t) => {
  const metrics = createMetrics()
  const stop = new StreamStop(new InvalidRequestError('Stopped', 'stopped'))
  const stopping = buildChain(
    [
      {
        plugin: plugin('a', 100),
        hooks: {
          onStreamChunk: () => {
            throw stop
          },
        },
      },
    ],
    metrics,
  )
  t.throws(() => stopping.runStreamChunk(makeContext(), { text: 'x' }), stop)
  const boom = () => {
    throw new Error('boom')
  }
  const closed = buildChain([{ plugin: plugin('a', 100), hooks: { onStreamChunk: boom, onStreamEnd: boom } }], metrics)
  for (const run of [() => closed.runStreamChunk(makeContext(), { text: 'x' }), () => closed.runStreamEnd(makeContext(), [])]) {
    let thrown: unknown
    try {
      await run()
    } catch (err) {
      thrown = err
    }
    t.ok(thrown instanceof StreamStop)
    t.match(await (thrown as StreamStop).error, { status: 500, error: 'Internal server error' })
  }
  const open = buildChain([{ plugin: plugin('a', 100, { failOpen: true }), hooks: { onStreamChunk: boom, onStreamEnd: boom } }], metrics)
  t.same(open.runStreamChunk(makeContext(), { text: 'x' }), { text: 'x' })
  t.same(await open.runStreamEnd(makeContext(), []), { text: '', toolCalls: [] })
})

const answer = (text: string): CompletionResult => ({
  text,
  provider: 'openai',
  model: 'gpt-4o-mini',
  cacheHit: false,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costCents: 0 },
})

t.test('every onAnswer hook runs before any onAnswered hook, which sees the answer as rewritten and sent', async (t) => {
  const seen: string[] = []
  const hooks = (name: string): PluginHooks => ({
    onAnswer: (_ctx, result) => {
      seen.push(`${name} answer`)
      result.text += ` ${name}`
    },
    onAnswered: (_ctx, result, withheld) => void seen.push(`${name} answered ${result.text} ${withheld === undefined ? 'sent' : 'withheld'}`),
  })
  const chain = buildChain(
    [
      { plugin: plugin('b', 300), hooks: hooks('b') },
      { plugin: plugin('a', 100), hooks: hooks('a') },
    ],
    createMetrics(),
  )
  t.equal(await chain.runAnswer(makeContext(), answer('x'), false), undefined)
  t.same(seen, ['a answer', 'b answer', 'a answered x a b sent', 'b answered x a b sent'])
})

t.test('a withheld answer stops the onAnswer hooks and reaches every onAnswered hook as withheld', async (t) => {
  const seen: string[] = []
  const refusal = Reply.json({ withheld: true }, 403)
  const chain = buildChain(
    [
      { plugin: plugin('idempotency', 100), hooks: { onAnswered: (_ctx, _result, withheld) => void seen.push(`idempotency ${withheld?.kind}`) } },
      { plugin: plugin('governor', 200), hooks: { onAnswer: () => refusal } },
      {
        plugin: plugin('cache', 300),
        hooks: { onAnswer: () => void seen.push('cache answer'), onAnswered: (_ctx, _result, withheld) => void seen.push(`cache ${withheld === refusal}`) },
      },
    ],
    createMetrics(),
  )
  t.equal(await chain.runAnswer(makeContext(), answer('x'), false), refusal)
  t.same(seen, ['idempotency json', 'cache true'])
})

t.test('on a live stream, already sent, a Reply from onAnswer withholds nothing', async (t) => {
  const seen: string[] = []
  const chain = buildChain(
    [
      { plugin: plugin('a', 100), hooks: { onAnswer: () => Reply.json({}, 403) } },
      {
        plugin: plugin('b', 200),
        hooks: {
          onAnswer: () => void seen.push('b answer'),
          onAnswered: (_ctx, _result, withheld) => void seen.push(`b ${withheld === undefined ? 'sent' : 'withheld'}`),
        },
      },
    ],
    createMetrics(),
  )
  t.equal(await chain.runAnswer(makeContext(), answer('x'), true), undefined)
  t.same(seen, ['b answer', 'b sent'])
})

t.test('an onAnswered hook of a fail-closed plugin that throws answers with its error', async (t) => {
  const chain = buildChain(
    [
      {
        plugin: plugin('a', 100),
        hooks: {
          onAnswered: () => {
            throw new Error('ledger down')
          },
        },
      },
    ],
    createMetrics(),
  )
  t.match(await chain.runAnswer(makeContext(), answer('x'), false), { kind: 'error', error: { status: 500 } })
})

t.test('boot refuses duplicate names or orders and asynchronous stream hooks', async (t) => {
  t.throws(() => assertPluginRules([plugin('a', 100), plugin('a', 200)]), /used twice/)
  t.throws(() => assertPluginRules([plugin('a', 100), plugin('b', 100)]), /share order 100/)
  t.throws(
    () => buildChain([{ plugin: plugin('a', 100), hooks: { onStreamChunk: (async () => undefined) as never } }], createMetrics()),
    /onStreamChunk must not be an async function/,
  )
  t.throws(
    () => buildChain([{ plugin: plugin('a', 100), hooks: { holdsStreamToolCalls: (async () => false) as never } }], createMetrics()),
    /holdsStreamToolCalls must not be an async function/,
  )
  t.doesNotThrow(
    () => buildChain([{ plugin: plugin('a', 100), hooks: { onStreamEnd: async () => undefined } }], createMetrics()),
    'the end of a stream runs once: it may be async',
  )
})

t.test('boot refuses a plugin whose required plugin is missing or set up after it, naming both', async (t) => {
  const governed = plugin('governor', 300, { requires: ['auth'] })
  t.throws(
    () => assertPluginRules([plugin('cache', 400), governed]),
    new ConfigError('plugin "governor" requires plugin "auth", which is not among the gateway\'s plugins (cache, governor)'),
  )
  t.throws(
    () => assertPluginRules([plugin('auth', 500), governed]),
    new ConfigError('plugin "governor" (order 300) requires plugin "auth" to be set up before it, but "auth" has order 500'),
  )
  t.doesNotThrow(() => assertPluginRules([governed, plugin('auth', 100)]))
})

t.test('boot refuses a plugin that reads the state of a plugin set up after it, naming both; an absent one leaves its slot empty', async (t) => {
  const cache = plugin('cache', 400, { reads: ['governor'] })
  t.throws(
    () => assertPluginRules([plugin('governor', 500), cache]),
    new ConfigError('plugin "cache" (order 400) reads the state of plugin "governor", which must run before it, but "governor" has order 500'),
  )
  t.doesNotThrow(() => assertPluginRules([cache, plugin('governor', 300)]))
  t.doesNotThrow(() => assertPluginRules([cache]))
})

t.test("the log line gets each plugin's fields; a logFields hook that throws is counted and left out", async (t) => {
  const metrics = createMetrics()
  const chain = buildChain(
    [
      {
        plugin: plugin('b', 200),
        hooks: {
          logFields: () => {
            throw new Error('broken')
          },
        },
      },
      { plugin: plugin('a', 100), hooks: { logFields: (_ctx, verbose) => (verbose ? { keyId: 'key_1', cache: 'hit' } : { cache: 'hit' }) } },
      { plugin: plugin('c', 300), hooks: {} },
    ],
    metrics,
  )
  t.same(chain.logFields(completed(makeContext()), false), { cache: 'hit' })
  t.same(chain.logFields(completed(makeContext()), true), { keyId: 'key_1', cache: 'hit' })
  t.match(await metrics.registry.getSingleMetricAsString('tollgate_plugin_failures_total'), /plugin="b"\} 2/)
})

t.test('a hook that throws because its client left stops the chain without counting a plugin failure', async (t) => {
  const metrics = createMetrics()
  const controller = new AbortController()
  controller.abort(new Error('client disconnected'))
  const chain = buildChain(
    [
      {
        plugin: plugin('a', 100, { failOpen: true }),
        hooks: {
          onRequest: () => {
            throw new Error('aborted')
          },
        },
      },
    ],
    metrics,
  )
  t.match(await chain.runRequest(makeContext({ signal: controller.signal })), { stoppedBy: 'a', reply: { kind: 'error' } })
  t.notMatch(await metrics.registry.getSingleMetricAsString('tollgate_plugin_failures_total'), /plugin="a"/)
})

t.test("a stream hook whose work its client's leaving cut short ends the stream with the reason, without counting a plugin failure", async (t) => {
  const metrics = createMetrics()
  const controller = new AbortController()
  const reason = new Error('client disconnected')
  controller.abort(reason)
  const aborted = () => Promise.reject(new Error('task aborted'))
  const chain = buildChain([{ plugin: plugin('a', 100), hooks: { onStreamChunk: aborted, onStreamEnd: aborted } }], metrics)
  await t.rejects(chain.runStreamChunk(makeContext({ signal: controller.signal }), { text: 'x' }) as Promise<unknown>, reason)
  await t.rejects(chain.runStreamEnd(makeContext({ signal: controller.signal }), []) as Promise<unknown>, reason)
  t.notMatch(await metrics.registry.getSingleMetricAsString('tollgate_plugin_failures_total'), /plugin="a"/)
})
