// What each request leaves in the log, by its key's environment (the spec: development keys
// verbose, staging minimal, production errors only), on top of LOG_LEVEL, which stays the floor:
//
//   key            request's logger level          `request` line (at info)
//   sk_dev_        LOG_LEVEL                       verbose: metadata, timings, routing decisions
//   sk_stg_        LOG_LEVEL, at least info        minimal: what an SRE looks for (below)
//   sk_prod_       LOG_LEVEL, at least error       none
//   none/unmarked  LOG_LEVEL                       minimal
//
// No line holds prompt or answer text: the verbose line counts messages and tokens, and errors are
// scrubbed by log.ts, of the request's own texts too. A production request whose line is not
// written costs a table lookup, no object.
import type { Logger, LevelWithSilent } from 'pino'
import { requestTexts, type AiRequest } from './pipeline/ai-request.ts'
import type { CompletedContext, KeyEnv } from './pipeline/context.ts'
import { logError } from './log.ts'

type RequestLine = 'verbose' | 'minimal'

interface EnvPolicy {
  /** Level of the request's logger; undefined: the process logger's own. */
  readonly level: LevelWithSilent | undefined
  readonly line: RequestLine | undefined
}

export interface RequestLogPolicy {
  /**
   * The request's logger, made when first used; a production key's writes errors only. Its lines
   * carry `reqId` (the `x-request-id` answered) and, when the client chose that id, the gateway's
   * own as `gatewayReqId`, the id its ledger entry and other records are kept under. An error it
   * logs loses the spans that repeat `ai`'s texts (a provider's message may echo the prompt).
   */
  loggerFor(reqId: string, gatewayReqId: string, env: KeyEnv | null, ai?: AiRequest): Logger
  /** The `request` line's detail for the key's environment; undefined when it is not written. */
  requestLine(env: KeyEnv | null): RequestLine | undefined
}

export function createRequestLogPolicy(log: Logger): RequestLogPolicy {
  const levelValue = (level: 'info' | 'error') => log.levels.values[level]!
  const policy = (floor: 'info' | 'error' | undefined, line: RequestLine): EnvPolicy => {
    const floorValue = floor === undefined ? -Infinity : levelValue(floor)
    return {
      level: floorValue > log.levelVal ? floor : undefined,
      line: Math.max(floorValue, log.levelVal) <= levelValue('info') ? line : undefined,
    }
  }
  const byEnv: Record<KeyEnv | 'none', EnvPolicy> = {
    dev: policy(undefined, 'verbose'),
    stg: policy('info', 'minimal'),
    prod: policy('error', 'minimal'),
    none: policy(undefined, 'minimal'),
  }
  return {
    loggerFor(reqId, gatewayReqId, env, ai) {
      const { level } = byEnv[env ?? 'none']
      const bindings = reqId === gatewayReqId ? { reqId } : { reqId, gatewayReqId }
      if (ai === undefined) return level === undefined ? log.child(bindings) : log.child(bindings, { level })
      // The texts are listed only when an error is written.
      const serializers = {
        err: (err: unknown) =>
          logError(
            err,
            requestTexts(ai).map((text) => text.text),
          ),
      }
      return log.child(bindings, level === undefined ? { serializers } : { level, serializers })
    },
    requestLine: (env) => byEnv[env ?? 'none'].line,
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10

/**
 * The access line: route, status, outcome and time; then, as far as the request got, its project,
 * the plugin that stopped the chain and the error's code, the model that served (or was chosen),
 * the tokens and what was charged. All of it is already in the context. Plugins add their own
 * fields (the cache's result, on a development key's line the key and the Governor's verdict).
 */
export function minimalRequestFields(ctx: CompletedContext): Record<string, unknown> {
  const { status, reason, durationMs, stoppedBy, errorCode } = ctx.outcome
  const fields: Record<string, unknown> = { route: ctx.route.name, status, outcome: reason, ms: round(durationMs) }
  const { caller, modelCall, charge } = ctx
  if (caller !== undefined) fields['projectId'] = caller.project.id
  if (stoppedBy !== undefined) fields['stoppedBy'] = stoppedBy
  if (errorCode !== undefined) fields['errorCode'] = errorCode
  const result = ctx.result
  if (modelCall !== undefined) {
    const served = result ?? ctx.servedBy ?? modelCall
    fields['provider'] = served.provider
    fields['model'] = served.model
  }
  if (result !== undefined) {
    fields['promptTokens'] = result.usage.promptTokens
    fields['completionTokens'] = result.usage.completionTokens
    if (result.cachedInputTokens !== undefined) fields['cachedInputTokens'] = result.cachedInputTokens
    if (result.cacheWriteTokens !== undefined) fields['cacheWriteTokens'] = result.cacheWriteTokens
  }
  const charged = charge?.chargedDollars ?? (result === undefined ? undefined : result.usage.costCents / 100)
  if (charged !== undefined) fields['chargedDollars'] = charged
  return fields
}

/** The minimal fields, and what a developer wants to see of a request: never its text. */
export function verboseRequestFields(ctx: CompletedContext): Record<string, unknown> {
  const fields = minimalRequestFields(ctx)
  fields['method'] = ctx.method
  fields['path'] = ctx.path
  const ai = ctx.ai
  if (ai !== undefined) {
    Object.assign(fields, {
      messageCount: ai.messages.length,
      quality: ai.quality,
      requestedModel: ai.model ?? null,
      maxTokens: ai.maxTokens,
      temperature: ai.temperature,
      mode: ai.mode,
      governed: ai.governorMetadata !== undefined,
    })
  }
  // Without an answer, the gateway's own count of the prompt.
  if (ctx.modelCall !== undefined) fields['promptTokens'] ??= ctx.modelCall.promptTokens
  if (ctx.upstreamMs !== undefined) fields['upstreamMs'] = round(ctx.upstreamMs)
  if (ctx.firstByteMs !== undefined) fields['firstByteMs'] = round(ctx.firstByteMs)
  return fields
}
