// The model call and the delivery of its answer, as one JSON body or as Server-Sent Events, in
// the route's answer format (the spec's own, or a client dialect's). Cache hits are delivered
// here too, so both paths produce the same bytes and headers.
import type { ServerResponse } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Span } from '@opentelemetry/api'
import type { ToolCall } from './ai-request.ts'
import type { AnswerFormat, StreamFrames } from './answer-format.ts'
import type { Chain } from './chain.ts'
import { modelCatalog } from './catalog.ts'
import type { CompletionResult, FinishReason, ProviderEvent, ProviderResult, ServedBy, TokenUsage, ToolCallDelta } from './completion.ts'
import { isStreamed, type ModelCall, type Outcome, type RequestContext } from './context.ts'
import { creditsOf, dollars } from './credits.ts'
import { InternalError, ShuttingDownError, toGatewayError } from './errors.ts'
import { MODEL_HEADER, PROMPT_TOKENS_HEADER, modelHeaderOf } from '../http/gateway-headers.ts'
import type { CoreMetrics } from '../metrics.ts'
import { costDollars } from './models.ts'
import { nativeFormat } from './native-format.ts'
import { render, type Finish } from '../http/render.ts'
import { sendJson } from '../http/respond.ts'
import { SseWriter, type SseHead } from '../http/sse.ts'
import { StreamStop } from './stream-stop.ts'
import { newSpanId, traceHeadersOf, type TraceParent } from '../kit/trace-context.ts'
import { endProviderCall, failSpan, type Tracing } from '../tracing.ts'
import { countTokens } from '../../workers/count-tokens.ts'

export interface AiDeps {
  readonly chain: Chain
  readonly metrics: CoreMetrics
  /** Silence after which a stream gets a keep-alive comment (and is opened for it); 0: none. */
  readonly streamKeepAliveMs: number
  /** Present only when tracing is on. */
  readonly tracing?: Tracing | undefined
}

/** Figures known only once the answer is complete; on a streamed miss they travel as trailers. */
const LATE_HEADERS = ['x-gateway-completion-tokens', 'x-credits-charged', 'x-credits-remaining'] as const

/**
 * Longest piece of a provider's delta handed to the stream hooks at once, with a turn of the event
 * loop between pieces: hooks that scan the text stay short however much a provider sends at once.
 */
const MAX_PIECE_CHARS = 2048

function formatOf(ctx: RequestContext): AnswerFormat {
  return ctx.route.dialect?.format ?? nativeFormat
}

export async function callModel(ctx: RequestContext, res: ServerResponse, deps: AiDeps): Promise<Finish> {
  const decision = ctx.modelCall
  if (decision === undefined) throw new InternalError('No model route was decided for this request.')
  const started = performance.now()
  const observe = (outcome: 'ok' | 'error') => {
    ctx.upstreamMs = performance.now() - started
    // Read at the end: a fallback may have served instead of the route's first choice.
    const served = ctx.servedBy ?? decision
    deps.metrics.observeUpstream(served.provider, modelCatalog().metricName(served.model), outcome, ctx.upstreamMs / 1000)
  }
  const firstByte = () => {
    ctx.firstByteMs = performance.now() - started
    const served = ctx.servedBy ?? decision
    deps.metrics.observeFirstByte(served.provider, modelCatalog().metricName(served.model), ctx.firstByteMs / 1000)
  }
  const span = deps.tracing === undefined || ctx.span === undefined ? undefined : deps.tracing.startProviderCall(ctx.span, decision, ctx.ai?.maxTokens)
  if (span !== undefined) ctx.upstreamTraceHeaders = deps.tracing!.headersFor(span, ctx.traceParent?.tracestate)
  else if (ctx.traceParent !== undefined) ctx.upstreamTraceHeaders = continuedTrace(ctx.traceParent)
  try {
    if (isStreamed(ctx)) return await streamAnswer(ctx, res, decision, deps, firstByte, observe, span)
    const answer = await decision.call.complete(ctx.signal)
    if (answer.servedBy !== undefined) ctx.servedBy = answer.servedBy
    firstByte()
    observe('ok')
    const result = buildResult(decision, answer)
    if (span !== undefined) endProviderCall(span, result.model, result.usage)
    return await deliverCompletion(ctx, res, result, deps)
  } catch (err) {
    observe('error')
    if (span !== undefined) failSpan(deps.tracing!, span, err)
    throw err
  }
}

/** The caller's trace, continued from a span of the gateway's own (a new id, as no SDK names one). */
function continuedTrace(parent: TraceParent): Record<string, string> {
  return traceHeadersOf(parent.traceId, newSpanId(), parent.flags, parent.tracestate)
}

/** Tokens the model generated, counted here when the provider reported none. */
function generatedTokens(answer: ProviderResult): number {
  let tokens = countTokens(answer.text)
  for (const call of answer.toolCalls ?? []) tokens += countTokens(call.name) + countTokens(call.arguments)
  return tokens
}

/**
 * The answer as the client gets it, priced here once at the serving model's list prices: metering
 * charges this figure, the idempotency record keeps it, and the answer formats render it.
 */
export function buildResult(decision: ModelCall, answer: ProviderResult): CompletionResult {
  const usage: TokenUsage = answer.usage ?? { promptTokens: decision.promptTokens, completionTokens: generatedTokens(answer) }
  const served: ServedBy = answer.servedBy ?? decision
  const cost = costDollars(modelCatalog().info(served.model), usage)
  const result: CompletionResult = {
    text: answer.text,
    provider: served.provider,
    model: served.model,
    cacheHit: false,
    usage: {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.promptTokens + usage.completionTokens,
      costCents: roundCents(cost * 100),
    },
    finishReason: answer.finishReason ?? (answer.toolCalls === undefined ? 'stop' : 'tool_calls'),
  }
  if (answer.toolCalls !== undefined) result.toolCalls = answer.toolCalls
  if (answer.embeddings !== undefined) result.embeddings = answer.embeddings
  if (usage.cachedInputTokens !== undefined) result.cachedInputTokens = usage.cachedInputTokens
  if (usage.cacheWriteTokens !== undefined) result.cacheWriteTokens = usage.cacheWriteTokens
  return result
}

/** Renders a complete answer (fresh or from the cache) after the onAnswer and onAnswered hooks have run. */
export async function deliverCompletion(ctx: RequestContext, res: ServerResponse, given: CompletionResult, deps: AiDeps): Promise<Finish> {
  // Its own copy: onAnswer hooks may replace the text, and a replayed answer may be shared.
  const result = { ...given }
  ctx.result = result
  const answered = deps.chain.runAnswer(ctx, result, false)
  const replaced = answered instanceof Promise ? await answered : answered
  if (replaced !== undefined) return render(ctx, res, replaced)
  const reason: Outcome = result.cacheHit ? 'cache_hit' : 'ok'
  const format = formatOf(ctx)
  if (!isStreamed(ctx)) {
    sendJson(res, 200, format.json(ctx, result), { ...earlyHeaders(ctx, result), ...lateHeaders(ctx, result) })
    return { status: 200, reason }
  }
  const sse = new SseWriter(res, ctx.signal)
  const frames = format.stream(ctx, { model: result.model, promptTokens: result.usage.promptTokens })
  sse.open({ headers: { ...earlyHeaders(ctx, result), ...lateHeaders(ctx, result) }, trailers: [] })
  // The whole answer is known: it goes out in one write.
  let out = frames.open() + frames.text(result.text)
  const calls = result.toolCalls ?? []
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    out += frames.toolCall({ index, id: call.id, name: call.name, arguments: call.arguments })
  }
  sse.close(out + frames.close(result))
  return { status: 200, reason }
}

/** A tool call put together from its streamed pieces, with the index its pieces share. */
interface AssembledCall extends ToolCall {
  readonly index: number
}

/** Tool calls put together from their streamed pieces; a call without id or name is dropped. */
function assembleToolCalls(pieces: readonly ToolCallDelta[]): AssembledCall[] {
  const calls: { id?: string; name?: string; arguments: string }[] = []
  for (const piece of pieces) {
    const call = (calls[piece.index] ??= { arguments: '' })
    if (piece.id !== undefined) call.id = piece.id
    if (piece.name !== undefined) call.name = piece.name
    call.arguments += piece.arguments
  }
  const complete: AssembledCall[] = []
  for (const [index, call] of calls.entries()) {
    if (call?.id !== undefined && call.name !== undefined) complete.push({ index, id: call.id, name: call.name, arguments: call.arguments })
  }
  return complete
}

/**
 * The held pieces to send, in the order they came, of the calls put together: only what the end
 * hooks saw goes out. A call whose arguments a hook rewrote goes out whole where its first piece
 * came; `released` are the `assembled` calls as the hooks let them out, in the same order.
 */
function heldPieces(pieces: readonly ToolCallDelta[], assembled: readonly AssembledCall[], released: readonly AssembledCall[]): ToolCallDelta[] {
  const kept = new Set<number>()
  const rewritten = new Map<number, AssembledCall>()
  released.forEach((call, i) => {
    if (call.arguments === assembled[i]!.arguments) kept.add(call.index)
    else rewritten.set(call.index, call)
  })
  const out: ToolCallDelta[] = []
  for (const piece of pieces) {
    if (kept.has(piece.index)) out.push(piece)
    const call = rewritten.get(piece.index)
    if (call === undefined) continue
    out.push({ index: call.index, id: call.id, name: call.name, arguments: call.arguments })
    rewritten.delete(piece.index)
  }
  return out
}

function withoutIndex({ id, name, arguments: input }: AssembledCall): ToolCall {
  return { id, name, arguments: input }
}

/**
 * The answer as Server-Sent Events. The provider's events come in batches, one per read of its
 * answer; each batch goes through the stream hooks event by event and out to the client in one
 * write, so a stream costs a promise per read and not per event or per layer.
 */
async function streamAnswer(
  ctx: RequestContext,
  res: ServerResponse,
  decision: ModelCall,
  deps: AiDeps,
  firstByte: () => void,
  observe: (outcome: 'ok' | 'error') => void,
  span: Span | undefined,
): Promise<Finish> {
  const events = decision.call.stream(ctx.signal)[Symbol.asyncIterator]()
  const sse = new SseWriter(res, ctx.signal)
  const head = (): SseHead => ({
    headers: { 'x-request-id': ctx.requestId, ...ctx.responseHeaders, 'x-cache-status': 'MISS' },
    trailers: [...LATE_HEADERS, ...ctx.trailerNames],
  })
  // Opened by a keep-alive comment before the provider spoke, the stream cannot yet say which
  // model serves it (a fallback may): x-gateway-model then follows as a trailer.
  const headBeforeModel = (): SseHead => {
    const { headers, trailers } = head()
    delete headers[MODEL_HEADER]
    return { headers, trailers: [MODEL_HEADER, ...trailers] }
  }
  if (deps.streamKeepAliveMs > 0) sse.keepAlive(deps.streamKeepAliveMs, headBeforeModel)
  const framesFor = (served: ServedBy) => formatOf(ctx).stream(ctx, { model: served.model, promptTokens: decision.promptTokens })
  // Nothing is sent before the first batch unless the model is silent for longer than the
  // keep-alive interval, so a failure up to here is usually still a plain JSON error.
  let step: IteratorResult<readonly ProviderEvent[]>
  try {
    step = await events.next()
    firstByte()
  } catch (err) {
    if (!sse.opened) {
      sse.stopKeepAlive()
      throw err
    }
    observe('error')
    if (span !== undefined) failSpan(deps.tracing!, span, err)
    return streamFailed(ctx, sse, framesFor(decision), '', err)
  }
  // A fallback that serves is announced first.
  const announced = step.done === true ? undefined : step.value[0]
  const servedBy = announced?.type === 'served' ? (ctx.servedBy = { provider: announced.provider, model: announced.model }) : undefined
  const frames = framesFor(servedBy ?? decision)
  const modelAsTrailer = sse.opened
  if (!sse.opened) sse.open(head())
  // Frames not yet written: what one batch produces goes out in one write.
  let out = frames.open()
  const flush = (): Promise<unknown> | undefined => {
    const written = sse.write(out)
    out = ''
    return written
  }
  let usage: TokenUsage | undefined
  let finishReason: FinishReason | undefined
  // The text the model generated (ctx.streamedText also counts tool calls), and what the client
  // got of it: stream hooks may hold text back, replace it or stop the stream.
  let generated = ''
  let sent = ''
  const send = (text: string) => {
    if (text === '') return
    sent += text
    out += frames.text(text)
  }
  const toolCallPieces: ToolCallDelta[] = []
  let toolCalls: AssembledCall[] = []
  // The tool calls as the client got them: held ones as the end hooks let them out.
  let sentCalls: readonly AssembledCall[] = []
  try {
    // Held tool-call pieces go out only once the end hooks have seen the whole calls.
    const holdToolCalls = deps.chain.holdsStreamToolCalls(ctx)
    for (let from = servedBy === undefined ? 0 : 1; step.done !== true; step = await events.next(), from = 0) {
      const batch = step.value
      for (let i = from; i < batch.length; i++) {
        const event = batch[i]!
        switch (event.type) {
          case 'usage':
            usage = event.usage
            break
          case 'finish':
            finishReason = event.reason
            break
          case 'tool_call':
            toolCallPieces.push(event.delta)
            // Metering counts what was generated, should the stream be cut.
            ctx.streamedText += (event.delta.name ?? '') + event.delta.arguments
            if (!holdToolCalls) out += frames.toolCall(event.delta)
            break
          case 'delta':
            for (let at = 0; at < event.text.length; ) {
              if (at > 0) {
                await flush()
                await nextTurn()
              }
              const to = pieceEnd(event.text, at)
              const piece = event.text.slice(at, to)
              at = to
              generated += piece
              ctx.streamedText += piece
              const passed = deps.chain.runStreamChunk(ctx, { text: piece })
              if (passed instanceof Promise) {
                // A hook's long work (a scan in the worker pool): what passed before goes out meanwhile.
                await flush()
                send((await passed).text)
              } else {
                send(passed.text)
              }
            }
            break
        }
      }
      const written = flush()
      if (written !== undefined) await written
    }
    sse.ending()
    toolCalls = assembleToolCalls(toolCallPieces)
    const ending = deps.chain.runStreamEnd(ctx, toolCalls)
    const ended = ending instanceof Promise ? await ending : ending
    // The held text came before the tool calls, and goes out before them.
    send(ended.text)
    sentCalls = holdToolCalls ? ended.toolCalls : toolCalls
    if (holdToolCalls) for (const piece of heldPieces(toolCallPieces, toolCalls, sentCalls)) out += frames.toolCall(piece)
    const written = flush()
    if (written !== undefined) await written
  } catch (err) {
    if (err instanceof StreamStop) {
      observe('ok')
      if (span !== undefined) failSpan(deps.tracing!, span, err)
      // Closes the provider's response now rather than when it would have ended.
      events.return?.().catch(() => undefined)
      const error = await err.error.catch((cause: unknown) => {
        ctx.log.error({ err: cause }, 'stopping the stream failed')
        return toGatewayError(cause)
      })
      sse.end(out + frames.error(error))
      return { status: 200, reason: 'stream_stopped' }
    }
    observe('error')
    if (span !== undefined) failSpan(deps.tracing!, span, err)
    return streamFailed(ctx, sse, frames, out, err)
  }
  observe('ok')
  // Usage counts what the model generated; the text and the tool calls are what the client got.
  const answer: ProviderResult = {
    text: generated,
    ...(usage !== undefined && { usage }),
    ...(toolCalls.length > 0 && { toolCalls: toolCalls.map(withoutIndex) }),
    ...(finishReason !== undefined && { finishReason }),
    ...(servedBy !== undefined && { servedBy }),
  }
  const result: CompletionResult = { ...buildResult(decision, answer), text: sent }
  if (sentCalls.length > 0) result.toolCalls = sentCalls.map(withoutIndex)
  if (span !== undefined) endProviderCall(span, result.model, result.usage)
  ctx.result = result
  // A stream's status is sent; a Reply from the hooks cannot replace it any more.
  const answered = deps.chain.runAnswer(ctx, result, true)
  if (answered instanceof Promise) await answered
  sse.close(frames.close(result), { ...(modelAsTrailer && { [MODEL_HEADER]: modelHeaderOf(result) }), ...lateHeaders(ctx, result), ...trailersOf(ctx) })
  return { status: 200, reason: 'ok' }
}

/** A stream whose status is sent failed: it ends with the frames not yet written and the format's error event. */
function streamFailed(ctx: RequestContext, sse: SseWriter, frames: StreamFrames, unwritten: string, err: unknown): Finish {
  // The gateway cutting the stream at its shutdown deadline aborts the signal too; only the
  // client leaving means nobody is there to read an error event.
  const cut = ctx.signal.reason instanceof ShuttingDownError ? ctx.signal.reason : undefined
  if (ctx.signal.aborted && cut === undefined) return { status: 200, reason: 'client_aborted' }
  const error = cut ?? toGatewayError(err)
  ctx.log.error({ err }, 'stream failed after it began')
  sse.end(unwritten + frames.error(error))
  return { status: 200, reason: 'stream_aborted', errorCode: error.code }
}

/** Where the piece of `text` that starts at `from` ends; never between the halves of a surrogate pair. */
function pieceEnd(text: string, from: number): number {
  const end = from + MAX_PIECE_CHARS
  if (end >= text.length) return text.length
  const code = text.charCodeAt(end - 1)
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end
}

/** The headers plugins declared as trailers (ctx.trailerNames) and set by the end of the answer. */
function trailersOf(ctx: RequestContext): Record<string, string> {
  const trailers: Record<string, string> = {}
  for (const name of ctx.trailerNames) {
    const value = ctx.responseHeaders[name]
    if (value !== undefined) trailers[name] = value
  }
  return trailers
}

function earlyHeaders(ctx: RequestContext, result: CompletionResult): Record<string, string> {
  return {
    'x-request-id': ctx.requestId,
    ...ctx.responseHeaders,
    [MODEL_HEADER]: modelHeaderOf(result),
    [PROMPT_TOKENS_HEADER]: String(result.usage.promptTokens),
    'x-cache-status': result.cacheHit ? 'HIT' : 'MISS',
  }
}

function lateHeaders(ctx: RequestContext, result: CompletionResult): Record<string, string> {
  const { charged, remaining } = creditsOf(ctx, result)
  const headers: Record<string, string> = {
    'x-gateway-completion-tokens': String(result.usage.completionTokens),
    'x-credits-charged': dollars(charged),
  }
  if (remaining !== undefined) headers['x-credits-remaining'] = dollars(remaining)
  return headers
}

function roundCents(value: number): number {
  return Math.round(value * 1e4) / 1e4
}
