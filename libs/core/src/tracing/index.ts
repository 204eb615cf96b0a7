import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from "@opentelemetry/api";
import { tracer } from "./tracer.js";

export { SpanKind, type Attributes, type Context, type Span, type SpanOptions };
export { TRACER_NAME, tracer } from "./tracer.js";
export {
  dbSpan,
  describeStatement,
  endDbSpan,
  sqlOperation,
  statementParent,
  statementSpanAfter,
  type DbSystem,
  type StatementDescription,
} from "./db.js";

// Tracing is off unless the server registered an OpenTelemetry SDK (apps/server's tracing setup). Every
// call site asks `tracingEnabled()` first and, when it is false, does exactly what it did before: no span
// objects (not even the API's no-op ones), no context switches, no extra storage statements. The flag sits
// on globalThis so that two copies of this module (a bundled graph, say) agree.
const STATE = Symbol.for("agent-server.tracing");
const state = ((globalThis as Record<symbol, unknown>)[STATE] ??= { on: false, sqliteSpanMinMs: 0 }) as {
  on: boolean;
  sqliteSpanMinMs: number;
};

/** Whether spans are recorded (an SDK is registered): the one check every instrumented place makes first. */
export function tracingEnabled(): boolean {
  return state.on;
}

/** Set by the server once its SDK is registered (and cleared when it shuts down). */
export function setTracingEnabled(on: boolean): void {
  state.on = on;
}

/**
 * SQLite statements faster than this make no span (ms; 0: every statement). An embedded database's
 * statement takes tens of microseconds, less than a span costs: only the slow ones are worth a span.
 */
export function sqliteSpanMinMs(): number {
  return state.sqliteSpanMinMs;
}

export function setSqliteSpanMinMs(ms: number): void {
  state.sqliteSpanMinMs = ms;
}

/** The active context: the span a new one becomes a child of. */
export function activeContext(): Context {
  return context.active();
}

/** A span started now under `parent` (default: the active context). It is not made active: see `withSpan`. */
export function startSpan(name: string, options: SpanOptions = {}, parent: Context = context.active()): Span {
  return tracer().startSpan(name, options, parent);
}

/** Runs `fn` with `span` as the active span (children started inside descend from it). */
export function withSpan<T>(span: Span, fn: () => T, parent: Context = context.active()): T {
  return context.with(trace.setSpan(parent, span), fn);
}

/** `parent` (default: the active context) with `span` as its span: what children of `span` start under. */
export function contextWithSpan(span: Span, parent: Context = context.active()): Context {
  return trace.setSpan(parent, span);
}

/**
 * Runs `fn` inside a new active span, ended when `fn` settles; a throw marks it failed and is rethrown.
 * When tracing is off, `fn` runs as it is, with no span.
 */
export async function traced<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T> | T,
  parent?: Context,
): Promise<T> {
  if (!state.on) return fn(undefined);
  const base = parent ?? context.active();
  const span = tracer().startSpan(name, options, base);
  try {
    return await context.with(trace.setSpan(base, span), () => fn(span));
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` outside any trace (tracing on): for loops a request merely wakes up (claiming runs, sending
 * deliveries), whose work belongs to no one request's trace.
 */
export function outsideTrace<T>(fn: () => T): T {
  return state.on ? context.with(ROOT_CONTEXT, fn) : fn();
}

/** Marks a span failed with the error (its type and message as an exception event). */
export function recordError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  else span.recordException(String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

export function markFailed(span: Span, message?: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
}

/**
 * Whether the active span records (tracing on, a span active and sampled): work that only feeds child
 * spans (the graph's callbacks) is skipped for a trace the sampler dropped.
 */
export function activeSpanRecording(): boolean {
  return state.on && trace.getSpan(context.active())?.isRecording() === true;
}

/** Whether a span is active here: storage statements outside any trace (polling, leases) make none. */
export function hasActiveSpan(): boolean {
  return trace.getSpan(context.active()) !== undefined;
}

/** The ids of the active span (for log records), or undefined outside any span or with tracing off. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  if (!state.on) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** The W3C `traceparent` of a context (default: the active one), or undefined without a span. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** Adds `traceparent` (and `tracestate`) of `ctx` to outgoing headers. */
export function injectTraceHeaders(headers: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, headers);
  return headers;
}

/**
 * The context a stored or received `traceparent` names (the root context when there is none or it is not
 * valid W3C trace context): spans started under it continue that trace.
 */
export function contextFromTraceparent(traceparent: string | undefined, tracestate?: string): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, tracestate ? { traceparent, tracestate } : { traceparent });
}

/** The trace context that came with a request's headers (`get` reads one header by lower-case name). */
export function contextFromHeaders(get: (name: string) => string | undefined): Context {
  return contextFromTraceparent(get("traceparent") ?? undefined, get("tracestate") ?? undefined);
}
