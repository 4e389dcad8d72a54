// The OpenTelemetry SDK behind proxy/tracing.ts, imported only when tracing is on: a
// BasicTracerProvider with a BatchSpanProcessor and the OTLP/HTTP (JSON) exporter. The provider is
// not registered globally; the gateway passes its tracer where spans are made.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type Span } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { GatewayError } from '../pipeline/errors.ts'
import type { TraceParent } from '../kit/trace-context.ts'
import { traceHeadersOf } from '../kit/trace-context.ts'
import type { Tracing } from '../tracing.ts'

/** `<endpoint>/v1/traces`, as the OTLP spec derives the traces URL from the base endpoint. */
function tracesUrlOf(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`
}

/** What failed, by a name safe to export: the gateway's stable code, the outcome, or the error's class. */
function errorTypeOf(err: unknown): string {
  if (typeof err === 'string') return err
  if (err instanceof GatewayError) return err.code
  return err instanceof Error ? err.name : 'unknown'
}

export function createTracing(endpoint: string, serviceName: string, version: string): Tracing {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrlOf(endpoint) }))],
  })
  const tracer = provider.getTracer('tollgate', version)

  const remoteParent = (parent: TraceParent) =>
    trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: parent.parentId,
      traceFlags: Number.parseInt(parent.flags, 16),
      isRemote: true,
      ...(parent.tracestate !== undefined && { traceState: createTraceState(parent.tracestate) }),
    })

  return {
    startRequest(method, path, parent) {
      return tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: { 'http.request.method': method, 'url.path': path },
        },
        parent === undefined ? ROOT_CONTEXT : remoteParent(parent),
      )
    },
    startStage(parent, name) {
      return tracer.startSpan(name, { kind: SpanKind.INTERNAL }, trace.setSpan(ROOT_CONTEXT, parent))
    },
    startProviderCall(parent, decision, maxTokens) {
      const attributes: Record<string, string | number> = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': decision.provider,
        'gen_ai.system': decision.provider,
        'gen_ai.request.model': decision.model,
      }
      if (maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = maxTokens
      return tracer.startSpan(`chat ${decision.model}`, { kind: SpanKind.CLIENT, attributes }, trace.setSpan(ROOT_CONTEXT, parent))
    },
    headersFor(span: Span, tracestate) {
      const { traceId, spanId, traceFlags } = span.spanContext()
      return traceHeadersOf(traceId, spanId, traceFlags.toString(16).padStart(2, '0'), tracestate)
    },
    fail(span, err) {
      const type = errorTypeOf(err)
      span.setAttribute('error.type', type)
      span.setStatus({ code: SpanStatusCode.ERROR, message: type })
    },
    shutdown: () => provider.shutdown(),
  }
}
