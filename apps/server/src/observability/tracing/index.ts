import type { Logger } from "../logger.js";
import { tracesRequested } from "./config.js";
import type { Tracing } from "./types.js";

export { tracesRequested } from "./config.js";
export type { Tracing } from "./types.js";

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
