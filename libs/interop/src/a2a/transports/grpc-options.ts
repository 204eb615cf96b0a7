import type { A2ACardSettings } from "../card/app-options.js";
import type { A2ACallObserver } from "../observe-calls.js";
import type { A2ALogger } from "../request-errors.js";
import type { StructuralRequestAuth } from "../request-scope.js";

/** The address a gRPC server was bound to: the host as given to it, the port it actually got. */
export interface A2AGrpcAddress {
  host: string;
  port: number;
}

/** Card settings as for the HTTP routes: the extended card and security apply over gRPC as well. */
export interface A2AGrpcServerOptions extends A2ACardSettings {
  /** Address to bind (`127.0.0.1`, `localhost`, `0.0.0.0`, `::`, ...). */
  host: string;
  /** Port to bind; 0 picks a free one (the running server reports the one it got). */
  port: number;
  /**
   * The project's auth, as the HTTP API applies it (agent-protocol's `requestAuthenticator(auth)`): each
   * call is turned into a fetch `Request` (POST `http://<host:port>/lf.a2a.v1.A2AService/<Method>`, the
   * call's text metadata as headers, e.g. `authorization`), so an auth handler that reads headers works
   * unchanged. Its `HTTPException` 401/403 answers UNAUTHENTICATED / PERMISSION_DENIED with its message.
   * Unset: every caller may do everything (no custom auth).
   */
  authenticate?: ((request: Request) => Promise<StructuralRequestAuth>) | undefined;
  /** Told of every call's end (metrics); nothing is counted without it. */
  observeCall?: A2ACallObserver | undefined;
  /** Where errors that clients only see as INTERNAL "Internal error" are reported; console.error when unset. */
  logger?: A2ALogger | undefined;
  /** langgraph.json `a2a.default_assistant`: the agent of calls with an empty tenant (else the only graph). */
  defaultAssistant?: string | undefined;
}

export interface RunningA2AGrpcServer extends A2AGrpcAddress {
  /** `host:port` as bound (a gRPC target: no scheme, IPv6 in brackets). */
  url: string;
  /** Stops the server; calls still open (streams) are cancelled, as the HTTP server drops its SSE streams. */
  close(): Promise<void>;
}

/** `host:port` as a gRPC target: an IPv6 address in brackets. */
export function grpcTarget(host: string, port: number): string {
  return `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/**
 * The URL of the gRPC interface on agent cards: `dns:///host:port`. A2A asks for an absolute URL, and
 * clients hand it to their gRPC library as the channel target: this is gRPC's own URI for "resolve host,
 * dial port" (gRPC naming, `dns:[//authority/]host[:port]`), which grpc-js (so @a2a-js/sdk's
 * GrpcTransport) and gRPC core (Python, C++) dial as given. `grpc://host:port` or `http://host:port`
 * would be absolute too, but grpc-js takes an unknown scheme for part of a DNS name and never connects.
 */
export function grpcInterfaceUrl(host: string, port: number): string {
  return `dns:///${grpcTarget(host, port)}`;
}
