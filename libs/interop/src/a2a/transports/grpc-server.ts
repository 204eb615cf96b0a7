import * as grpc from "@grpc/grpc-js";
import type { User } from "@a2a-js/sdk/server";
import { A2AService, grpcService } from "@a2a-js/sdk/server/grpc";
import { agentCardFor } from "../agent-card.js";
import { agentCardOptions } from "../card/app-options.js";
import { registerPushDelivery } from "../push/push-delivery.js";
import { consoleA2ALogger } from "../request-errors.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { openScope, requestScope, type A2ARequestScope } from "../request-scope.js";
import { observedHandler } from "../observe-calls.js";
import { keepGrpcTraceparent } from "../../tracing.js";
import { decodingTolerant } from "./grpc-decoding.js";
import { GrpcDispatchHandler, grpcFailure } from "./grpc-dispatch.js";
import { grpcInterfaceUrl, grpcTarget, type A2AGrpcServerOptions, type RunningA2AGrpcServer } from "./grpc-options.js";
import { callContext } from "./json-rpc.js";

/** See `startA2AGrpcServer` (grpc.ts), which loads this module on first use. */
export async function bindA2AGrpcServer(deps: A2AHandlerDeps, options: A2AGrpcServerOptions): Promise<RunningA2AGrpcServer> {
  const logger = options.logger ?? consoleA2ALogger;
  // As a2aRoutes does (once per engine): push configs created over gRPC are delivered too.
  registerPushDelivery(deps);
  const target = grpcTarget(options.host, options.port);
  // The bound `host:port`, known once bound (before any call arrives).
  let url = target;
  let interfaceUrl = grpcInterfaceUrl(options.host, options.port);
  const cardOptions = agentCardOptions(deps, options, logger);
  const dispatcher = new GrpcDispatchHandler(deps, {
    defaultAssistant: options.defaultAssistant,
    logger,
    cardOptions,
    // The assistant's handler keeps a card for `getAgentCard`, which the gRPC service never asks it for
    // (it asks the dispatcher): the assistant as this binding serves it.
    card: (assistant, tenant) => {
      const card = agentCardFor(assistant, "", { ...cardOptions, grpc: { url: interfaceUrl, tenant } });
      return { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === "GRPC") };
    },
  });

  const server = new grpc.Server();
  server.addService(
    decodingTolerant(A2AService),
    grpcService({
      requestHandler: observedHandler(dispatcher, "grpc", options.observeCall),
      // Authentication runs first, as the HTTP API's middleware does before any route: an unauthenticated
      // caller learns nothing, not even whether the assistant it names exists.
      userBuilder: async (call) => {
        try {
          const scope = options.authenticate ? requestScope(await options.authenticate(fetchRequestOf(call, url))) : openScope;
          return new GrpcCaller(scope, call.metadata.get("traceparent")[0]?.toString(), cancellationOf(call));
        } catch (error) {
          throw grpcFailure(error, logger, { method: call.getPath().split("/").pop() });
        }
      },
      // The scope goes into the context's state exactly as the HTTP transports put it (callContext).
      contextBuilder: ({ user, requestedVersion, tenant, extensions }) => {
        if (!(user instanceof GrpcCaller)) throw grpcFailure(new Error("gRPC call without an authenticated caller"), logger, {});
        return keepGrpcTraceparent(
          callContext(requestedVersion, user.scope, { tenant, requestedExtensions: extensions, signal: user.signal }),
          user.traceparent,
        );
      },
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, bound) => {
      if (!error) return resolve(bound);
      server.forceShutdown();
      reject(bindError(error, target));
    });
  });
  url = grpcTarget(options.host, port);
  interfaceUrl = grpcInterfaceUrl(options.host, port);
  return {
    host: options.host,
    port,
    url,
    close: async () => {
      // Open calls (streams waiting for a run) are cancelled, as the HTTP server closes its SSE streams.
      server.forceShutdown();
    },
  };
}

/** The caller of one call, as the SDK's `userBuilder` returns it; it carries the scope to the context builder. */
class GrpcCaller implements User {
  constructor(
    readonly scope: A2ARequestScope,
    /** The call's W3C trace context, from its metadata. */
    readonly traceparent?: string,
    /** Aborts when the call is cancelled (the client went away, its deadline passed, the server closes). */
    readonly signal?: AbortSignal,
  ) {}

  get isAuthenticated(): boolean {
    return this.scope.auth !== undefined;
  }

  get userName(): string {
    return this.scope.auth?.user.identity ?? "";
  }
}

type GrpcCall = Parameters<Parameters<typeof grpcService>[0]["userBuilder"]>[0];

/**
 * A signal that aborts when `call` is cancelled. The SDK's service goes on pulling a stream's generator
 * after its client left (its writes are dropped); a stream that waits for something other than a run (a
 * task waiting for input, see tasks/task-subscription.ts) stops on this instead.
 */
function cancellationOf(call: GrpcCall): AbortSignal {
  const controller = new AbortController();
  if (call.cancelled) controller.abort();
  else call.once("cancelled", () => controller.abort());
  return controller.signal;
}

/**
 * The call as the fetch `Request` the project's auth handler reads: POST to the call's method path (gRPC
 * is a POST over HTTP/2) with its text metadata as headers. Binary (`-bin`) metadata and values that are
 * not valid header values are left out.
 */
function fetchRequestOf(call: GrpcCall, url: string): Request {
  const headers = new Headers();
  for (const [key, values] of Object.entries(call.metadata.toJSON())) {
    if (key.endsWith("-bin")) continue;
    for (const value of values) {
      try {
        headers.append(key, String(value));
      } catch {
        // Not a valid header name or value for fetch: no auth handler could read it as one anyway.
      }
    }
  }
  return new Request(`http://${url}${call.getPath()}`, { method: "POST", headers });
}

/**
 * grpc-js reports a failed bind as "No address added out of total 1 resolved errors: [listen EADDRINUSE
 * ...]" without a code; the socket error's code is taken from the text, so callers can say what to do.
 */
function bindError(error: Error, target: string): Error {
  const code =
    /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL|ENOTFOUND)\b/.exec(error.message)?.[1] ??
    (/Name resolution failed/.test(error.message) ? "ENOTFOUND" : undefined);
  return Object.assign(new Error(`cannot bind the A2A gRPC server to ${target}: ${error.message}`, { cause: error }), code ? { code } : {});
}
