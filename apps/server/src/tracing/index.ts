import type { Logger } from "../logger.js";
import type { StartedServer } from "../start-server.js";
import { tracesRequested } from "./config.js";

export { tracesRequested } from "./config.js";

/** The server's tracing, once started: `shutdown` exports what is still buffered and turns it off. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when the environment asks for it (`tracesRequested`); otherwise returns
 * undefined having loaded nothing: no SDK module, no exporter, and every instrumented place stays on its
 * untraced path (`tracingEnabled()` is false). Call before the storage opens and anything serves.
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing | undefined> {
  if (!tracesRequested(env)) return undefined;
  const { startTracingSdk } = await import("./sdk.js");
  return startTracingSdk(env, logger);
}

/** The server, its stop also exporting the spans still buffered (after the storage closed: its last statements too). */
export function withTracingShutdown(server: StartedServer, tracing: Tracing | undefined): StartedServer {
  if (!tracing) return server;
  const stop = server.stop.bind(server);
  server.stop = async (graceMs, drainMs) => {
    try {
      await stop(graceMs, drainMs);
    } finally {
      await tracing.shutdown();
    }
  };
  return server;
}
