// The UpstreamCall the router hands to the core for one request: runs the attempt loop, checks
// json-mode answers, and keeps x-gateway-model true when a fallback serves (the answer itself
// says which model served it).
import type { ProviderEvent, ProviderResult, UpstreamCall } from '../../proxy/pipeline/completion.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import { UpstreamInvalidJsonError, type UpstreamError, type UpstreamTimeoutError } from '../../proxy/pipeline/errors.ts'
import { MODEL_HEADER, PROMPT_TOKENS_HEADER, modelHeaderOf } from '../../proxy/http/gateway-headers.ts'
import {
  completeWithRetry,
  openStreamWithRetry,
  type CallObserver,
  type Candidate,
  type OpenedStream,
  type RequestShape,
  type RetryPolicy,
} from './call-with-retry.ts'
import { toJsonText } from './logic/json-answer.ts'

/** The prompt's token count, or how to count it once the request has been admitted. */
type PromptCount = number | ((signal: AbortSignal) => Promise<number>)

export class RoutedCall implements UpstreamCall, CallObserver {
  readonly #candidates: readonly Candidate[]
  readonly #shape: Omit<RequestShape, 'promptTokens'>
  readonly #policy: RetryPolicy
  readonly #ctx: RequestContext
  #promptTokens: PromptCount
  /** The candidate that served, when it was not the first. */
  #fallback: Candidate | undefined

  /** `shape` is the call's own (made for it alone): the call adds the prompt's count to it. */
  constructor(
    candidates: readonly Candidate[],
    shape: Omit<RequestShape, 'promptTokens'>,
    promptTokens: PromptCount,
    policy: RetryPolicy,
    ctx: RequestContext,
  ) {
    this.#candidates = candidates
    this.#shape = shape
    this.#promptTokens = promptTokens
    this.#policy = policy
    this.#ctx = ctx
  }

  async complete(signal: AbortSignal): Promise<ProviderResult> {
    const shape = await this.#shapeFor(signal)
    const answer = await completeWithRetry(this.#candidates, shape, this.#policy, signal, this)
    const fallback = this.#fallback
    const result = fallback === undefined ? answer : { ...answer, servedBy: { provider: fallback.provider, model: fallback.model } }
    // An answer that calls tools has no text to check; the tools' input is the client's to parse.
    if (shape.mode !== 'json' || result.toolCalls !== undefined) return result
    const json = toJsonText(result.text)
    if (json === undefined) throw new UpstreamInvalidJsonError()
    return json === result.text ? result : { ...result, text: json }
  }

  stream(signal: AbortSignal): AsyncIterable<readonly ProviderEvent[]> {
    return new RoutedStream(async () => openStreamWithRetry(this.#candidates, await this.#shapeFor(signal), this.#policy, signal, this))
  }

  /** Counts the prompt first when that was left until after admission. */
  async #shapeFor(signal: AbortSignal): Promise<RequestShape> {
    if (typeof this.#promptTokens !== 'number') {
      const counted = await this.#promptTokens(signal)
      this.#promptTokens = counted
      const decision = this.#ctx.state.router
      if (decision !== undefined) decision.promptTokens = counted
      this.#ctx.responseHeaders[PROMPT_TOKENS_HEADER] = String(counted)
    }
    // The shape was made for this call alone: the count goes into it rather than into a copy.
    const shape = this.#shape as RequestShape & { promptTokens: number }
    shape.promptTokens = this.#promptTokens
    const traceHeaders = this.#ctx.upstreamTraceHeaders
    return traceHeaders === undefined ? shape : { ...shape, traceHeaders }
  }

  onServed(candidate: Candidate): void {
    if (candidate === this.#candidates[0]) return
    this.#fallback = candidate
    this.#ctx.responseHeaders[MODEL_HEADER] = modelHeaderOf(candidate)
  }

  onAttemptFailed(candidate: Candidate, attempt: number, error: UpstreamError | UpstreamTimeoutError): void {
    this.#ctx.log.warn({ provider: candidate.provider, model: candidate.model, attempt, err: error }, 'upstream attempt failed')
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/**
 * The routed stream as the core reads it: the first read opens it (with its retries), every later
 * one is the provider stream's own, with no layer of its own in between.
 */
class RoutedStream implements AsyncIterableIterator<readonly ProviderEvent[]> {
  readonly #open: () => Promise<OpenedStream>
  #rest: AsyncIterator<readonly ProviderEvent[]> | undefined
  #isStopped = false

  constructor(open: () => Promise<OpenedStream>) {
    this.#open = open
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<readonly ProviderEvent[], undefined>> {
    if (this.#rest !== undefined) return this.#rest.next()
    if (this.#isStopped) return Promise.resolve(DONE)
    return this.#first()
  }

  async #first(): Promise<IteratorResult<readonly ProviderEvent[], undefined>> {
    const { first, rest } = await this.#open()
    this.#rest = rest
    // Stopped while it opened: the provider's request stops now.
    if (this.#isStopped) await rest.return?.()
    return first
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    this.#isStopped = true
    await this.#rest?.return?.()
    return DONE
  }
}
