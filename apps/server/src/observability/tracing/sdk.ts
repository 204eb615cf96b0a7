import { context, diag, DiagLogLevel, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, TracerProvider, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { setSqliteSpanMinMs, setTracingEnabled } from "@agent-server/core";
import type { Logger } from "../logger.js";
import { VERSION } from "../../version.js";
import { envNumber, otlpProtocol, traceExporters } from "./config.js";
import { samplerFromEnv } from "./sampler.js";
import type { Tracing } from "./types.js";

/**
 * SQLite statements faster than this (ms) make no span: they take tens of microseconds, less than their
 * span would cost. `AGENT_SERVER_TRACE_SQLITE_MIN_MS=0` traces every one.
 */
export const DEFAULT_SQLITE_SPAN_MIN_MS = 1;

/**
 * The OpenTelemetry SDK as the server runs it: a tracer provider with a batching processor per exporter
 * (OTLP over HTTP, JSON or protobuf, configured by the standard `OTEL_EXPORTER_OTLP_*` variables, which
 * the exporters read themselves; `console` for a look at spans on stdout), the sampler of
 * `OTEL_TRACES_SAMPLER`, W3C trace context (and baggage) propagation, AsyncLocalStorage as the context
 * manager, and a resource from `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` (service name
 * `agent-server` by default). Loaded only when tracing is asked for.
 */
export async function startTracingSdk(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing> {
  // The SDK's own trouble (an exporter that cannot reach its collector) as warnings in the server's log.
  diag.setLogger(
    {
      error: (message, ...args) => logger.warn({ otel: args.map(String) }, `OpenTelemetry: ${message}`),
      warn: (message, ...args) => logger.warn({ otel: args.map(String) }, `OpenTelemetry: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const exporters = await spanExporters(env, logger);
  const batch = {
    scheduledDelayMillis: envNumber(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
    exportTimeoutMillis: envNumber(env, "OTEL_BSP_EXPORT_TIMEOUT", 30_000),
    maxQueueSize: envNumber(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048),
    maxExportBatchSize: envNumber(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
  };
  const spanProcessors: SpanProcessor[] = exporters.map((exporter) => new BatchSpanProcessor({ exporter, ...batch }));
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "agent-server", "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, sampler: samplerFromEnv(env, logger), spanProcessors });

  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const sqliteSpanMinMs = envNumber(env, "AGENT_SERVER_TRACE_SQLITE_MIN_MS", DEFAULT_SQLITE_SPAN_MIN_MS);
  setSqliteSpanMinMs(sqliteSpanMinMs);
  setTracingEnabled(true);
  logger.info({ exporters: exporters.map((e) => e.constructor.name), sqlite_span_min_ms: sqliteSpanMinMs }, "OpenTelemetry tracing on");

  let stopped: Promise<void> | undefined;
  return {
    shutdown() {
      stopped ??= (async () => {
        setTracingEnabled(false);
        try {
          await provider.shutdown();
        } catch (error) {
          logger.warn({ err: error }, "OpenTelemetry: spans could not all be exported at shutdown");
        }
        trace.disable();
        propagation.disable();
        context.disable();
        diag.disable();
      })();
      return stopped;
    },
  };
}

async function spanExporters(env: NodeJS.ProcessEnv, logger: Logger): Promise<SpanExporter[]> {
  const names = traceExporters(env);
  const wanted = names.length === 0 ? ["otlp"] : names;
  const exporters: SpanExporter[] = [];
  for (const name of wanted) {
    if (name === "console") exporters.push(new ConsoleSpanExporter());
    else if (name === "otlp") exporters.push(await otlpExporter(env, logger));
    else logger.warn({ exporter: name }, `OTEL_TRACES_EXPORTER: "${name}" is not supported here (otlp, console, none); ignored`);
  }
  return exporters;
}

async function otlpExporter(env: NodeJS.ProcessEnv, logger: Logger): Promise<SpanExporter> {
  const { protocol, unsupported } = otlpProtocol(env);
  if (unsupported) {
    logger.warn({ protocol: unsupported }, `OTLP protocol "${unsupported}" is not supported for traces: sending http/protobuf instead`);
  }
  if (protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter();
}
