// The plugin chain: per-hook arrays built once at boot, run as flat loops in ascending order.
//
//   accept ─▶ parse+validate body (400/413) ─▶ makeContext
//     ─▶ onRequest: auth(100) → rate-limit(200) → idempotency(220) → router(250) → governor(300)
//                   → cache(400) → metering(450)
//           │ any returns a Reply ─────────────────────────────────────────────┐
//     ─▶ model call (the router's decision; ctx.signal; 502/504 on failure)    │
//     ─▶ onStreamChunk per chunk (may hold text back or stop the stream; a     │
//        promise only for long work, awaited before the next chunk), then      │
//        onStreamEnd once the model is done, or nothing for a JSON answer      │
//        (tool calls held back when holdsStreamToolCalls asked go out after    │
//        it, with the arguments onStreamEnd may have rewritten)                │
//     ─▶ onAnswer, once the whole answer is known (may rewrite it, or withhold │
//        a JSON answer), then onAnswered (commits: idempotent answer, cache,   │
//        charge), told whether the answer was withheld                         │
//     ─▶ last bytes written ◀──────────────────────────────────────────────────┘
//     ─▶ onComplete, always exactly once (settling, cache fill, metrics)
//
// There is no next() and no reverse pass: the order read here is the order things run.
// With tracing on, each hook is wrapped once here in a span of its own; off, hooks run bare.
import type { ToolCall } from './ai-request.ts'
import type { StreamChunk, CompletionResult } from './completion.ts'
import { ConfigError } from '../config.ts'
import type { CompletedContext, RequestContext, RouteKind } from './context.ts'
import { GatewayError, InternalError, toGatewayError } from './errors.ts'
import type { CoreMetrics } from '../metrics.ts'
import type { GatewayPlugin, PluginHooks, StreamEnd } from './plugin.ts'
import { Reply, type WholeReply } from '../http/reply.ts'
import { StreamStop } from './stream-stop.ts'
import { tracedHook, type Tracing } from '../tracing.ts'

interface Bound<H> {
  readonly plugin: GatewayPlugin
  readonly hook: H
}

type Hook<K extends keyof PluginHooks> = NonNullable<PluginHooks[K]>

interface StreamEnded<C extends ToolCall> extends StreamChunk {
  readonly toolCalls: readonly C[]
}

type MaybePromise<T> = T | Promise<T>

interface ChainStop {
  readonly reply: Reply
  readonly stoppedBy: string
}

export interface Chain {
  /**
   * Runs onRequest hooks for the route's kind; the first Reply stops the chain. A promise only
   * when a hook returned one.
   */
  runRequest(ctx: RequestContext): MaybePromise<ChainStop | undefined>
  /**
   * onAnswer hooks until one withholds the answer, then every onAnswered hook: the Reply to send
   * instead of the answer (withheld, or a hook's failure), or undefined to send the answer.
   * `sent`: the answer went out as it came (a live stream), so nothing can stand in its place.
   * A promise only when a hook returned one.
   */
  runAnswer(ctx: RequestContext, result: CompletionResult, sent: boolean): MaybePromise<WholeReply | undefined>
  /**
   * The chunk as the client gets it; throws (or rejects with) a StreamStop when a hook ends the
   * stream. A promise only when a hook returned one; the next chunk must wait for it.
   */
  runStreamChunk(ctx: RequestContext, chunk: StreamChunk): StreamChunk | Promise<StreamChunk>
  /** Whether a hook asks to hold this stream's tool-call pieces until its end checks passed. */
  holdsStreamToolCalls(ctx: RequestContext): boolean
  /**
   * The text hooks still held when the model finished, and the tool calls as the hooks let them
   * out (their arguments possibly rewritten); rejects with a StreamStop like runStreamChunk.
   */
  runStreamEnd<C extends ToolCall>(ctx: RequestContext, toolCalls: readonly C[]): MaybePromise<StreamEnded<C>>
  runComplete(ctx: CompletedContext): void
  /** The plugins' fields on the request's log line. */
  logFields(ctx: CompletedContext, verbose: boolean): Record<string, unknown>
}

/** The text still held and the tool calls after one end hook: its text after the held, its rewritten arguments in place. */
function endedWith<C extends ToolCall>(pending: string, calls: readonly C[], ended: StreamEnd | void | undefined): StreamEnded<C> {
  if (ended === undefined) return { text: pending, toolCalls: calls }
  const rewritten = ended.arguments
  return {
    text: pending + ended.text,
    toolCalls: rewritten === undefined ? calls : calls.map((call, i) => ({ ...call, arguments: rewritten[i] ?? call.arguments })),
  }
}

export function assertPluginRules(plugins: readonly GatewayPlugin[]): void {
  const byName = new Map<string, GatewayPlugin>()
  const orders = new Map<number, string>()
  for (const plugin of plugins) {
    if (byName.has(plugin.name)) throw new Error(`plugin name "${plugin.name}" is used twice`)
    const clash = orders.get(plugin.order)
    if (clash !== undefined) throw new Error(`plugins "${clash}" and "${plugin.name}" share order ${plugin.order}`)
    byName.set(plugin.name, plugin)
    orders.set(plugin.order, plugin.name)
  }
  for (const plugin of plugins) {
    for (const name of plugin.requires ?? []) {
      const required = byName.get(name)
      if (required === undefined) {
        throw new ConfigError(`plugin "${plugin.name}" requires plugin "${name}", which is not among the gateway's plugins (${[...byName.keys()].join(', ')})`)
      }
      if (required.order >= plugin.order) {
        throw new ConfigError(
          `plugin "${plugin.name}" (order ${plugin.order}) requires plugin "${name}" to be set up before it, but "${name}" has order ${required.order}`,
        )
      }
    }
    for (const name of plugin.reads ?? []) {
      const read = byName.get(name)
      if (read !== undefined && read.order >= plugin.order) {
        throw new ConfigError(
          `plugin "${plugin.name}" (order ${plugin.order}) reads the state of plugin "${name}", which must run before it, but "${name}" has order ${read.order}`,
        )
      }
    }
  }
}

export function buildChain(entries: ReadonlyArray<{ plugin: GatewayPlugin; hooks: PluginHooks }>, metrics: CoreMetrics, tracing?: Tracing): Chain {
  const sorted = [...entries].sort((a, b) => a.plugin.order - b.plugin.order)
  for (const { plugin, hooks } of sorted) {
    // These run per chunk: a promise from every call would cost each chunk a turn of the loop.
    for (const hook of ['onStreamChunk', 'holdsStreamToolCalls'] as const) {
      if (hooks[hook]?.constructor.name === 'AsyncFunction')
        throw new Error(`plugin "${plugin.name}": ${hook} must not be an async function (it may return a promise when it has work to wait for)`)
    }
  }
  const collect = <K extends keyof PluginHooks>(key: K, kind?: RouteKind): Bound<Hook<K>>[] =>
    sorted
      .filter(({ plugin, hooks }) => hooks[key] !== undefined && (kind === undefined || (plugin.gates as readonly string[]).includes(kind)))
      .map(({ plugin, hooks }) => {
        const bound = (hooks[key] as unknown as (...args: unknown[]) => unknown).bind(hooks)
        // A span per stream chunk would outnumber everything else; chunks run inside the provider call's span.
        const hook =
          tracing === undefined || key === 'onStreamChunk' || key === 'onStreamEnd' || key === 'holdsStreamToolCalls'
            ? bound
            : tracedHook(tracing, plugin.name, key, bound)
        return { plugin, hook: hook as Hook<K> }
      })

  const onRequest: Record<RouteKind, Bound<Hook<'onRequest'>>[]> = {
    ai: collect('onRequest', 'ai'),
    keyed: collect('onRequest', 'keyed'),
    open: [],
  }
  const onAnswer = collect('onAnswer', 'ai')
  const onAnswered = collect('onAnswered', 'ai')
  const onStreamChunk = collect('onStreamChunk', 'ai')
  // For the end of a stream: what an earlier plugin releases still passes the later ones' chunk hooks.
  const onStreamPass = sorted
    .filter(({ plugin, hooks }) => (hooks.onStreamChunk !== undefined || hooks.onStreamEnd !== undefined) && plugin.gates.includes('ai'))
    .map(({ plugin, hooks }) => ({ plugin, chunk: hooks.onStreamChunk?.bind(hooks), end: hooks.onStreamEnd?.bind(hooks) }))
  const holdsStreamToolCalls = collect('holdsStreamToolCalls', 'ai')
  const onComplete = collect('onComplete')
  const logFields = sorted.filter(({ hooks }) => hooks.logFields !== undefined).map(({ plugin, hooks }) => ({ plugin, hook: hooks.logFields!.bind(hooks) }))

  /** A hook that threw: fail-open plugins are skipped, others answer with their error. */
  function failure(ctx: RequestContext, plugin: GatewayPlugin, hook: string, err: unknown): WholeReply | undefined {
    // A hook cut short by the request's end (the client left, or the gateway's shutdown deadline)
    // did not fail; the answer is the reason the request ended.
    if (ctx.signal.aborted) return Reply.error(toGatewayError(ctx.signal.reason))
    metrics.pluginFailures.inc({ plugin: plugin.name })
    ctx.log.error({ err, plugin: plugin.name, hook }, 'plugin hook failed')
    if (plugin.failOpen === true) return undefined
    return Reply.error(err instanceof GatewayError ? err : new InternalError(undefined, { cause: err }))
  }

  /**
   * A stream hook that threw: a StreamStop ends the stream as its plugin asked. Any other failure
   * of a fail-closed plugin ends it too, since that plugin could not check what would go out; a
   * fail-open plugin is skipped and the text passes unchanged.
   */
  function streamFailure(ctx: RequestContext, plugin: GatewayPlugin, hook: string, err: unknown): void {
    if (err instanceof StreamStop) throw err
    // A hook whose work was cut short by the request's end (the client left) did not fail.
    if (ctx.signal.aborted) throw ctx.signal.reason
    metrics.pluginFailures.inc({ plugin: plugin.name })
    ctx.log.error({ err, plugin: plugin.name, hook }, 'plugin hook failed')
    if (plugin.failOpen !== true) throw new StreamStop(err instanceof GatewayError ? err : new InternalError(undefined, { cause: err }))
  }

  /**
   * The chunk through the chunk hooks from the `from`th on. Synchronous while the hooks are: a
   * hook's promise (long work, e.g. a scan in the worker pool) is awaited before the hooks after it.
   */
  function passChunk(ctx: RequestContext, chunk: StreamChunk, from: number): StreamChunk | Promise<StreamChunk> {
    let current = chunk
    for (let i = from; i < onStreamChunk.length; i++) {
      const { plugin, hook } = onStreamChunk[i]!
      let returned: StreamChunk | void | Promise<StreamChunk | void>
      try {
        returned = hook(ctx, current)
      } catch (err) {
        streamFailure(ctx, plugin, 'onStreamChunk', err)
        continue
      }
      if (returned instanceof Promise) {
        const given = current
        return returned.then(
          (passed) => passChunk(ctx, passed ?? given, i + 1),
          (err: unknown) => {
            streamFailure(ctx, plugin, 'onStreamChunk', err)
            return passChunk(ctx, given, i + 1)
          },
        )
      }
      current = returned ?? current
    }
    return current
  }

  // The request and answer hooks run as passChunk runs the chunk hooks: synchronously while they
  // answer at once, as most do, and from a hook's promise on only once it settles. An async loop
  // would cost every request a suspended frame and a promise per pass, however few hooks wait.

  /**
   * The stream's end from the `from`th plugin on: what earlier plugins released passes this one's
   * chunk hook (unless `chunkPassed`, when its promise already did), then its end hook runs. A
   * failed step skips the rest of that plugin's, as streamFailure decides.
   */
  function streamEndFrom<C extends ToolCall>(
    ctx: RequestContext,
    from: number,
    held: string,
    given: readonly C[],
    chunkPassed: boolean,
  ): MaybePromise<StreamEnded<C>> {
    let pending = held
    let calls = given
    for (let i = from; i < onStreamPass.length; i++) {
      const { plugin, chunk, end } = onStreamPass[i]!
      const failed = (before: string) => (err: unknown) => {
        streamFailure(ctx, plugin, 'onStreamEnd', err)
        return streamEndFrom(ctx, i + 1, before, calls, false)
      }
      try {
        if (!(chunkPassed && i === from) && pending !== '' && chunk !== undefined) {
          const passed = chunk(ctx, { text: pending })
          if (passed instanceof Promise) {
            const before = pending
            return passed.then((out) => streamEndFrom(ctx, i, (out ?? { text: before }).text, calls, true), failed(before))
          }
          pending = (passed ?? { text: pending }).text
        }
        if (end === undefined) continue
        const returned = end(ctx, calls)
        if (returned instanceof Promise) {
          const before = pending
          return returned.then((ended) => {
            const after = endedWith(before, calls, ended)
            return streamEndFrom(ctx, i + 1, after.text, after.toolCalls, false)
          }, failed(before))
        }
        const after = endedWith(pending, calls, returned)
        pending = after.text
        calls = after.toolCalls
      } catch (err) {
        streamFailure(ctx, plugin, 'onStreamEnd', err)
      }
    }
    return { text: pending, toolCalls: calls }
  }

  /** The onRequest hooks from the `from`th on; the first Reply stops them. */
  function requestFrom(ctx: RequestContext, hooks: readonly Bound<Hook<'onRequest'>>[], from: number): MaybePromise<ChainStop | undefined> {
    for (let i = from; i < hooks.length; i++) {
      const { plugin, hook } = hooks[i]!
      let reply: Reply | void
      try {
        const returned = hook(ctx)
        if (returned instanceof Promise) {
          const next = (given: Reply | void) => (given === undefined ? requestFrom(ctx, hooks, i + 1) : { reply: given, stoppedBy: plugin.name })
          return returned.then(next, (err: unknown) => next(failure(ctx, plugin, 'onRequest', err)))
        }
        reply = returned
      } catch (err) {
        reply = failure(ctx, plugin, 'onRequest', err)
      }
      if (reply !== undefined) return { reply, stoppedBy: plugin.name }
    }
    return undefined
  }

  /** The onAnswer hooks from the `from`th on, until one withholds the answer; then every onAnswered hook. */
  function answerFrom(ctx: RequestContext, result: CompletionResult, sent: boolean, from: number): MaybePromise<WholeReply | undefined> {
    for (let i = from; i < onAnswer.length; i++) {
      const { plugin, hook } = onAnswer[i]!
      let reply: WholeReply | void
      try {
        const returned = hook(ctx, result)
        if (returned instanceof Promise) {
          const next = (given: WholeReply | void) => (given !== undefined && !sent ? answeredFrom(ctx, result, given, 0) : answerFrom(ctx, result, sent, i + 1))
          return returned.then(next, (err: unknown) => next(failure(ctx, plugin, 'onAnswer', err)))
        }
        reply = returned
      } catch (err) {
        reply = failure(ctx, plugin, 'onAnswer', err)
      }
      if (reply !== undefined && !sent) return answeredFrom(ctx, result, reply, 0)
    }
    return answeredFrom(ctx, result, undefined, 0)
  }

  /** The onAnswered hooks from the `from`th on: `withheld`, or a failed hook's Reply. */
  function answeredFrom(ctx: RequestContext, result: CompletionResult, withheld: WholeReply | undefined, from: number): MaybePromise<WholeReply | undefined> {
    for (let i = from; i < onAnswered.length; i++) {
      const { plugin, hook } = onAnswered[i]!
      try {
        const returned = hook(ctx, result, withheld)
        if (returned instanceof Promise) {
          return returned.then(
            () => answeredFrom(ctx, result, withheld, i + 1),
            (err: unknown) => failure(ctx, plugin, 'onAnswered', err) ?? answeredFrom(ctx, result, withheld, i + 1),
          )
        }
      } catch (err) {
        const reply = failure(ctx, plugin, 'onAnswered', err)
        if (reply !== undefined) return reply
      }
    }
    return withheld
  }

  return {
    runRequest(ctx) {
      return requestFrom(ctx, onRequest[ctx.route.kind], 0)
    },
    runAnswer(ctx, result, sent) {
      return answerFrom(ctx, result, sent, 0)
    },
    runStreamChunk(ctx, chunk) {
      return passChunk(ctx, chunk, 0)
    },
    holdsStreamToolCalls(ctx) {
      for (const { plugin, hook } of holdsStreamToolCalls) {
        try {
          if (hook(ctx)) return true
        } catch (err) {
          streamFailure(ctx, plugin, 'holdsStreamToolCalls', err)
        }
      }
      return false
    },
    runStreamEnd(ctx, toolCalls) {
      return streamEndFrom(ctx, 0, '', toolCalls, false)
    },
    runComplete(ctx) {
      for (const { plugin, hook } of onComplete) {
        try {
          hook(ctx)
        } catch (err) {
          metrics.pluginFailures.inc({ plugin: plugin.name })
          ctx.log.error({ err, plugin: plugin.name, hook: 'onComplete' }, 'plugin hook failed')
        }
      }
    },
    logFields(ctx, verbose) {
      const fields: Record<string, unknown> = {}
      for (const { plugin, hook } of logFields) {
        try {
          Object.assign(fields, hook(ctx, verbose))
        } catch (err) {
          metrics.pluginFailures.inc({ plugin: plugin.name })
          ctx.log.error({ err, plugin: plugin.name, hook: 'logFields' }, 'plugin hook failed')
        }
      }
      return fields
    },
  }
}
