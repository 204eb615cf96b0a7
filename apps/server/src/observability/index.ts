/** What the server tells about itself: its log, the LangGraph SDK's log, OpenTelemetry traces, Prometheus metrics. */
export { createLogger, runLogger, type Logger } from "./logger.js";
export { createSdkLogger, registerSdkLogger, SDK_LOGGER_SYMBOL, type SdkLogger } from "./sdk-logger.js";
export { startTracing, tracesRequested, type Tracing } from "./tracing/index.js";
export { METRIC_PREFIX, serverMetrics, ServerMetrics, type ScrapeSources } from "./metrics/index.js";
