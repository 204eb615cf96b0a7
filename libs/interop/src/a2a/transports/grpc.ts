import type { A2AHandlerDeps } from "../handler-deps.js";
import type { A2AGrpcServerOptions, RunningA2AGrpcServer } from "./grpc-options.js";

/**
 * Serves the A2A v1.0 gRPC binding (service `lf.a2a.v1.A2AService`, through `@a2a-js/sdk/server/grpc`)
 * on one port for every assistant: the request's `tenant` names the assistant (assistant id or graph
 * name; empty: the default assistant), as the `GRPC` interface of each agent card declares it. Calls run
 * through the same `TaskRequestHandler`, auth scoping and durable results as JSON-RPC and HTTP+JSON.
 * A port that cannot be bound rejects with an Error whose `code` is the socket error's
 * (EADDRINUSE, EACCES, EADDRNOTAVAIL, ENOTFOUND) when there is one.
 *
 * gRPC is loaded only here, on first use: a server without it does not pay for loading it.
 */
export async function startA2AGrpcServer(deps: A2AHandlerDeps, options: A2AGrpcServerOptions): Promise<RunningA2AGrpcServer> {
  const { bindA2AGrpcServer } = await import("./grpc-server.js");
  return bindA2AGrpcServer(deps, options);
}
