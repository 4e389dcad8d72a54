// Optional OpenTelemetry traces. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and then off means
// absent: the SDK is never imported, the chain is built without span wrappers, and the call path
// only tests one field. Only types come from @opentelemetry/api here, and they are erased.
//
// Spans: the request (SERVER), one per plugin hook that ran (`tollgate.plugin <name> <hook>`),
// and the provider call (CLIENT) with the GenAI semantic conventions. No span or attribute ever
// holds prompt or answer text, a key, or an error's message (a provider's may quote the prompt).
import type { Span } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { ModelCall, RequestContext } from './pipeline/context.ts'
import type { TraceParent } from './kit/trace-context.ts'

interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  readonly endpoint?: string | undefined
  /** OTEL_SERVICE_NAME: the resource's `service.name`. */
  readonly serviceName: string
}

export interface Tracing {
  /** The request's SERVER span: a child of the caller's span when a valid traceparent came in. */
  startRequest(method: string, path: string, parent: TraceParent | undefined): Span
  /** A plugin hook's span, a child of the request's. */
  startStage(parent: Span, name: string): Span
  /** The provider call's CLIENT span, with the request-side GenAI attributes. */
  startProviderCall(parent: Span, decision: ModelCall, maxTokens: number | undefined): Span
  /** The headers that continue `span`'s trace in the call it stands for. */
  headersFor(span: Span, tracestate: string | undefined): Record<string, string>
  /** Error status with the error's stable code (or the outcome given) as `error.type`. */
  fail(span: Span, err: unknown): void
  /** Exports what is still buffered, and stops. */
  shutdown(): Promise<void>
}

export async function startTracing(settings: TracingSettings, version: string, log: Logger): Promise<Tracing | undefined> {
  if (settings.endpoint === undefined) return undefined
  const { createTracing } = await import('./tracing/otel.ts')
  const tracing = createTracing(settings.endpoint, settings.serviceName, version)
  log.info({ endpoint: settings.endpoint, serviceName: settings.serviceName }, 'tracing on')
  return tracing
}

/** Ends the provider call's span with the model that served and its tokens. */
export function endProviderCall(span: Span, servedModel: string, usage: { readonly promptTokens: number; readonly completionTokens: number }): void {
  if (!span.isRecording()) return
  span.setAttributes({
    'gen_ai.response.model': servedModel,
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
  })
  span.end()
}

/** Ends a span as failed; does nothing to one already ended. */
export function failSpan(tracing: Tracing, span: Span, err: unknown): void {
  if (!span.isRecording()) return
  tracing.fail(span, err)
  span.end()
}

/**
 * `hook` inside a span named `tollgate.plugin <plugin> <hookName>`, ended when it returns or its
 * promise settles. Made once per hook at boot, and only when tracing is on.
 */
export function tracedHook(tracing: Tracing, plugin: string, hookName: string, hook: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const name = `tollgate.plugin ${plugin} ${hookName}`
  return (...args: unknown[]) => {
    const parent = (args[0] as RequestContext).span
    if (parent === undefined) return hook(...args)
    const span = tracing.startStage(parent, name)
    let returned: unknown
    try {
      returned = hook(...args)
    } catch (err) {
      failSpan(tracing, span, err)
      throw err
    }
    if (!(returned instanceof Promise)) {
      span.end()
      return returned
    }
    return returned.then(
      (value: unknown) => {
        span.end()
        return value
      },
      (err: unknown) => {
        failSpan(tracing, span, err)
        throw err
      },
    )
  }
}
