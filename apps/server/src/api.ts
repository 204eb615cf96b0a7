import { parseCli, UsageError } from "./cli/index.js";
import { createLogger } from "./observability/logger.js";

/**
 * The published package's programmatic entry (`import { startAgentServer } from "agent-server"`): the
 * server as its command line starts it, in the calling process. Its types are the package's
 * dist/index.d.ts (tools/package/src/build.ts writes it from `API_TYPES` there): keep the two in step.
 */
export interface AgentServer {
  /** The HTTP base URL, e.g. `http://127.0.0.1:2024`. */
  url: string;
  /** The A2A gRPC binding's `host:port`, when `--grpc-port` (or langgraph.json `a2a.grpc_port`) asked for it. */
  grpcUrl?: string;
  /** Drains (runs still executing after `graceMs` go back to the queue), closes the listeners and the storage. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `dev` or `serve` with the command line's arguments, e.g. `["serve", "--port", "0", "--config",
 * "langgraph.json"]`. `dev` never reloads here (the calling program owns the process). Rejects with the
 * command line's own message on a wrong argument or project.
 */
export async function startAgentServer(args: string[]): Promise<AgentServer> {
  const parsed = parseCli(args);
  if (parsed.kind !== "run" || (parsed.options.command !== "dev" && parsed.options.command !== "serve")) {
    throw new UsageError('startAgentServer runs dev or serve: pass their command line, e.g. ["serve", "--port", "0"]');
  }
  const options = { ...parsed.options, reload: false };
  const { readProject, startServer, withTracingShutdown } = await import("./serve/start-server.js");
  const project = await readProject(options);
  const logger = createLogger(options.logFormat);
  // As the CLI does: traces when the OTEL_* variables ask for them, flushed by stop.
  const { startTracing } = await import("./observability/tracing/index.js");
  const tracing = await startTracing(process.env, logger);
  const server = withTracingShutdown(await startServer(options, project!, logger), tracing);
  return {
    url: server.url,
    ...(server.grpcUrl ? { grpcUrl: server.grpcUrl } : {}),
    stop: (graceMs = options.graceMs) => server.stop(graceMs, options.drainMs),
  };
}
