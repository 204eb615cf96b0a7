import type { LangGraphConfig } from "@agent-server/engine";
import type { Logger } from "../logger.js";
import { ServerMetrics } from "./server-metrics.js";

export { ServerMetrics, METRIC_PREFIX, type ScrapeSources } from "./server-metrics.js";

/**
 * The server's Prometheus metrics, unless langgraph.json `http.disable_metrics` turns them off: then
 * nothing is counted and `/metrics` answers 404 like any unknown route.
 */
export function serverMetrics(
  config: LangGraphConfig,
  info: { version: string; storage: string; workers: number },
  logger: Logger,
): ServerMetrics | undefined {
  if (config.http?.disable_metrics === true) {
    logger.info({ metrics: false }, "Metrics off (http.disable_metrics)");
    return undefined;
  }
  return new ServerMetrics(info);
}
