// The Governor on the model's answer. A streamed answer under strict mode or redaction passes a
// StreamGuard chunk by chunk: strict mode stops it before a finding of HIGH or CRITICAL severity
// leaves, redaction replaces values on the way; a window too long to scan on the event loop is
// scanned in the worker pool (stream-scan.ts), and the chunk's hook then answers with a
// promise. Both have the core hold the stream's tool calls, whose arguments are checked whole at
// its end: strict mode stops on them, redaction replaces values in them (still valid JSON).
// Arguments are read by their decoded string values (json-scan-view.ts), their findings kept at
// offsets into the arguments as generated. Once the whole answer is known it is scanned, as the
// model generated it, for the record: a JSON answer (or a cache hit, not sent yet) is then
// withheld or redacted, text and tool calls' arguments alike, and the findings are reported in
// x-governor-output-* headers (trailers on a stream) and the done event.
// Whether the answer may be cached is left in ctx.state.governor.output for the cache to read.
import type { ToolCall } from '../../proxy/pipeline/ai-request.ts'
import type { CompletionResult, StreamChunk } from '../../proxy/pipeline/completion.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import type { AuthState } from '../auth/state.ts'
import type { GovernorState } from './state.ts'
import { OverloadedError, type GatewayError } from '../../proxy/pipeline/errors.ts'
import { GovernorBlockedError, GovernorResponseBlockedError } from './errors.ts'
import type { StreamEnd } from '../../proxy/pipeline/plugin.ts'
import { Reply, type WholeReply } from '../../proxy/http/reply.ts'
import { StreamStop } from '../../proxy/pipeline/stream-stop.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import type { Finding } from '../../workers/scan-content.ts'
import type { Assessment } from './assess.ts'
import { governorHeaders, outputHeaders } from './logic/headers.ts'
import type { ProjectRules } from './project-rules.ts'
import { answerDecision, buildAuditEntry } from './logic/audit-entry.ts'
import { blockedSummary, governedCall, type RequestHooksDeps } from './request-hooks.ts'
import { findingsInRaw, scanViewOf } from './logic/stream/json-scan-view.ts'
import { isCovered, redact, type Span } from './logic/stream/redact.ts'
import { redactJson } from './logic/stream/redact-json.ts'
import { StreamGuard, type GuardOutput } from './logic/stream/stream-guard.ts'
import { createStreamScan, scanOfWhole } from './stream-scan.ts'
import { findingSeverity, isBlockingSeverity } from './logic/verdict/finding-severity.ts'

interface AnswerHooksDeps extends RequestHooksDeps {
  readonly rules: ProjectRules
  readonly pool: WorkerPool
  /** The learned prompt-injection model decides what the rules leave undecided in streamed answers. */
  readonly learned: boolean
}

// The record of a stopped stream is written even when its client has gone meanwhile.
const NEVER_ABORTED = new AbortController().signal

/**
 * The scan of a guarded stream's whole answer found the worker pool's queue full: the stream
 * stops, as when a window of it could not be scanned (stream-scan.ts), rather than let out
 * what it holds unchecked.
 */
function stopUnchecked(err: unknown): never {
  if (!(err instanceof OverloadedError)) throw err
  throw new StreamStop(
    new OverloadedError(
      "The answer was stopped at its end: the worker pool's queue was full, so it could not be checked whole, and what had not been checked is not let out. Retry shortly.",
    ),
  )
}

/** A finding of HIGH or CRITICAL severity went out as generated: no redacted span covers it. */
function isExposed(findings: readonly Finding[], redacted: readonly Span[]): boolean {
  return findings.some((f) => isBlockingSeverity(findingSeverity(f.type, f.score)) && !isCovered(redacted, f.start, f.end))
}

export function createAnswerHooks(deps: AnswerHooksDeps) {
  /** Streams under strict mode or redaction; a request has one from its first chunk on. */
  const guards = new WeakMap<RequestContext, StreamGuard>()
  /** A guarded stream's whole answer and tool calls, assessed at its end. */
  const endAssessments = new WeakMap<RequestContext, Assessment>()
  const streamScan = createStreamScan({ pool: deps.pool, scanSeconds: deps.metrics.scanSeconds, learned: deps.learned })

  function guardOf(ctx: RequestContext): StreamGuard | undefined {
    const known = guards.get(ctx)
    if (known !== undefined) return known
    const auth = ctx.state.auth
    if (ctx.state.governor === undefined || auth === undefined) return undefined
    const { strictMode, redactOutput } = auth.project.governor
    if (!strictMode && !redactOutput) return undefined
    const stoppingRules = strictMode ? deps.rules(auth.project).filter((r) => isBlockingSeverity(r.rule.severity)) : []
    const guard = new StreamGuard({ stop: strictMode, redact: redactOutput, stoppingRules }, streamScan(ctx.signal))
    guards.set(ctx, guard)
    return guard
  }

  function passOn(ctx: RequestContext, guard: StreamGuard, output: GuardOutput): StreamChunk {
    if (output.kind === 'send') return { text: output.text }
    throw stopped(ctx, guard, [], output.found)
  }

  /** A promise only when the guard's scan went to the pool: a short window answers at once. */
  function passOnceScanned(ctx: RequestContext, guard: StreamGuard, output: GuardOutput | Promise<GuardOutput>): StreamChunk | Promise<StreamChunk> {
    return output instanceof Promise ? output.then((out) => passOn(ctx, guard, out)) : passOn(ctx, guard, output)
  }

  function stopped(ctx: RequestContext, guard: StreamGuard, toolCalls: readonly ToolCall[], found: readonly string[]): StreamStop {
    return new StreamStop(
      recordStop(
        ctx,
        guard.text,
        toolCalls.map((call) => call.arguments),
        found,
      ),
    )
  }

  /**
   * The assessment of an answer's text and of its tool calls' arguments, each a text of its own
   * after the answer's, read by their decoded string values.
   */
  async function assessAnswer(ctx: RequestContext, text: string, toolCallArguments: readonly string[], signal: AbortSignal): Promise<Assessment> {
    const views = toolCallArguments.map(scanViewOf)
    const assessment = await deps.assess(ctx.state.auth!.project, ctx.state.governor!.metadata, [text, ...views.map((view) => view.text)], signal)
    const [inText = [], ...inToolCalls] = assessment.findings
    return { ...assessment, findings: [inText, ...inToolCalls.map((found, i) => findingsInRaw(found, views[i]!))] }
  }

  /** The output record of a stopped stream, over everything the model generated up to the stop. */
  async function recordStop(ctx: RequestContext, text: string, toolCallArguments: readonly string[], found: readonly string[]): Promise<GatewayError> {
    const auth = ctx.state.auth!
    const state = ctx.state.governor!
    const assessment = await assessAnswer(ctx, text, toolCallArguments, NEVER_ABORTED)
    const { verdict } = assessment
    const call = governedCall(ctx, auth, state.metadata, 'output', state.auditId, deps.clock)
    const record = await deps.trail.append(buildAuditEntry(call, assessment, 'blocked', deps.newId, undefined))
    return new GovernorResponseBlockedError(
      `Strict mode stopped the answer before it sent ${found.join(', ')}: an answer's high and critical findings are not let out, and what was sent before had been checked. The audit record ${record.id} lists the reasons.`,
      record.id,
      verdict.level,
      blockedSummary(verdict),
      found,
    )
  }

  /** The checks of a governed request's whole answer, its record, and the answer withheld when strict mode stops it. */
  async function checkAnswer(ctx: RequestContext, result: CompletionResult, state: GovernorState, auth: AuthState): Promise<WholeReply | undefined> {
    const { governor } = auth.project
    // A guarded stream is already sent, each part checked on its way; it is scanned whole for
    // the record, as the model generated it (the result holds what was sent). Any other answer
    // (JSON, a cache hit) is not sent yet and can still be withheld or redacted. (A stream with
    // neither strict mode nor redaction has no guard, and there is nothing to withhold or redact
    // in it.) Tool calls' arguments are scanned too (assessAnswer); a guarded stream's were held,
    // checked and redacted at its end.
    const guard = guards.get(ctx)
    const assessment =
      guard === undefined
        ? await assessAnswer(ctx, result.text, result.toolCalls?.map((call) => call.arguments) ?? [], ctx.signal)
        : (endAssessments.get(ctx) ?? (await assessAnswer(ctx, guard.text, guard.toolCallInputs, ctx.signal)))
    const { verdict } = assessment
    const [findings = [], ...inToolCalls] = assessment.findings
    const stopping = verdict.violations.filter((v) => isBlockingSeverity(v.severity))
    const withheld = guard === undefined && governor.strictMode && stopping.length > 0
    let redacted = guard?.redacted ?? []
    let redactedInToolCalls = guard?.toolCallsRedacted ?? []
    if (guard === undefined && governor.redactOutput && !withheld) {
      const out = redact(result.text, 0, result.text.length, findings)
      result.text = out.text
      redacted = out.spans
      if (result.toolCalls !== undefined) {
        const calls = result.toolCalls.map((call, i) => ({ call, out: redactJson(call.arguments, inToolCalls[i] ?? []) }))
        result.toolCalls = calls.map(({ call, out }) => ({ ...call, arguments: out.text }))
        redactedInToolCalls = calls.map(({ out }) => out.spans)
      }
    }
    const exposed =
      isExposed(findings, redacted) ||
      inToolCalls.some((found, i) => isExposed(found, redactedInToolCalls[i] ?? [])) ||
      assessment.ruleMatches.some((m) => isBlockingSeverity(m.rule.severity))
    ctx.state.governor = { ...state, output: { riskLevel: verdict.level, violations: verdict.violations.length, storable: !withheld && !exposed } }
    Object.assign(ctx.responseHeaders, outputHeaders(verdict))
    // An answer that opens no violation (nothing, or only dates and links) adds nothing to the
    // trail: the request's record already stands for it.
    const record =
      verdict.violations.length === 0
        ? undefined
        : await deps.trail.append(
            buildAuditEntry(
              governedCall(ctx, auth, state.metadata, 'output', state.auditId, deps.clock),
              assessment,
              answerDecision(verdict, withheld),
              deps.newId,
              undefined,
            ),
          )
    ctx.doneFields.governor = { outputViolations: verdict.violations.length, outputRiskLevel: verdict.level, outputAuditId: record?.id ?? null }
    if (!withheld || record === undefined) return undefined
    Object.assign(ctx.responseHeaders, governorHeaders(verdict, record.id))
    return Reply.error(
      new GovernorBlockedError(
        `The model's answer was withheld: strict mode does not let out an answer with high or critical findings (${stopping.map((v) => v.category).join(', ')}). The audit record ${record.id} lists the reasons.`,
        record.id,
        verdict.level,
        blockedSummary(verdict),
      ),
    )
  }

  return {
    onStreamChunk(ctx: RequestContext, chunk: StreamChunk): StreamChunk | Promise<StreamChunk> | undefined {
      const guard = guardOf(ctx)
      return guard === undefined ? undefined : passOnceScanned(ctx, guard, guard.push(chunk.text))
    },

    holdsStreamToolCalls(ctx: RequestContext): boolean {
      return guardOf(ctx)?.holdsToolCalls === true
    },

    // Not async: a stream without a guard (most are) ends without a promise. A guarded one's whole
    // answer is assessed here for the record (onAnswer takes it), and that scan answers for the
    // guard's last window too: a scan of its own would cost the stream one more, most of what
    // strict mode adds to a short answer being its scans.
    onStreamEnd(ctx: RequestContext, toolCalls: readonly ToolCall[]): Promise<StreamEnd | undefined> | undefined {
      const guard = guards.get(ctx)
      return guard === undefined ? undefined : endGuarded(ctx, guard, toolCalls)
    },

    // Not async: most requests are not governed, and an async hook costs them a promise and a
    // suspended frame for nothing.
    onAnswer(ctx: RequestContext, result: CompletionResult): Promise<WholeReply | undefined> | undefined {
      const state = ctx.state.governor
      const auth = ctx.state.auth
      if (state === undefined || auth === undefined) return undefined
      return checkAnswer(ctx, result, state, auth)
    },
  }

  /** The end of a guarded stream: the whole answer assessed, the held text and tool calls let out or stopped. */
  async function endGuarded(ctx: RequestContext, guard: StreamGuard, toolCalls: readonly ToolCall[]): Promise<StreamEnd | undefined> {
    const inputs = toolCalls.map((call) => call.arguments)
    const assessment = await assessAnswer(ctx, guard.text, inputs, ctx.signal).catch(stopUnchecked)
    endAssessments.set(ctx, assessment)
    const held = passOn(ctx, guard, await guard.end(scanOfWhole(guard.text, assessment.findings[0] ?? [])))
    if (toolCalls.length === 0) return held
    const calls = await guard.releaseToolCalls(inputs)
    if (calls.kind === 'stop') throw stopped(ctx, guard, toolCalls, calls.found)
    return { text: held.text, arguments: calls.arguments }
  }
}
