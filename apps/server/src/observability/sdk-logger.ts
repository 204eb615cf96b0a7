import { currentRunContext } from "@agent-server/engine";
import type { Logger } from "pino";

/**
 * The logger that graph code reaches through `getLogger()` of `@langchain/langgraph-sdk/logging`: that
 * function reads this global symbol, and throws when nothing is registered there, so a graph written
 * for the official server crashes at import without it.
 */
export const SDK_LOGGER_SYMBOL = Symbol.for("langgraph.api.sdk-logger");

/** winston's level names, as the SDK's `Logger` type declares them, mapped onto pino's levels. */
const LEVELS = {
  error: "error",
  warn: "warn",
  help: "info",
  data: "info",
  info: "info",
  http: "debug",
  verbose: "debug",
  debug: "debug",
  prompt: "debug",
  input: "debug",
  silly: "trace",
} as const;

type LeveledLogMethod = (message: unknown, ...meta: unknown[]) => SdkLogger;
export type SdkLogger = Record<keyof typeof LEVELS, LeveledLogMethod>;

/**
 * A winston-shaped facade over pino. Each record carries the graph, run and thread the calling code
 * runs for (when it runs inside a run), so a node's log lines can be found by run id.
 * Accepts winston's call forms: `(message, ...meta)`, `(infoObject)` with a `message` field.
 */
export function createSdkLogger(logger: Logger): SdkLogger {
  const facade = {} as SdkLogger;
  for (const [name, level] of Object.entries(LEVELS) as [keyof typeof LEVELS, (typeof LEVELS)[keyof typeof LEVELS]][]) {
    facade[name] = (message, ...meta) => {
      const context = currentRunContext();
      const fields: Record<string, unknown> = context ? { ...context } : {};
      let text: string | undefined;
      if (typeof message === "string") text = message;
      else if (message instanceof Error) fields.err = message;
      else if (message && typeof message === "object") {
        const { message: inner, ...rest } = message as Record<string, unknown>;
        Object.assign(fields, rest);
        if (inner !== undefined) text = typeof inner === "string" ? inner : JSON.stringify(inner);
      } else if (message !== undefined) text = String(message);
      for (const extra of meta) {
        if (extra instanceof Error) fields.err = extra;
        else if (extra && typeof extra === "object") Object.assign(fields, extra);
        else if (extra !== undefined) text = text === undefined ? String(extra) : `${text} ${String(extra)}`;
      }
      logger[level](fields, text);
      return facade;
    };
  }
  return facade;
}

/** Registers the facade before any graph module loads (a graph may call `getLogger()` at import). */
export function registerSdkLogger(logger: Logger): SdkLogger {
  const facade = createSdkLogger(logger.child({ source: "graph" }));
  (globalThis as Record<symbol, unknown>)[SDK_LOGGER_SYMBOL] = facade;
  return facade;
}
