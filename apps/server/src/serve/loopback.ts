import type { LoopbackFetch } from "@agent-server/engine";

/**
 * Where `@langchain/langgraph-sdk`'s `Client` looks for an in-process fetch: a `new Client()` made
 * without an `apiUrl` (in a custom route of `http.app`, or in a graph) sends its requests through it,
 * to this server's own app, as on the official server. Without it the SDK would call
 * http://localhost:8123, where nothing listens.
 */
const SDK_FETCH = Symbol.for("langgraph_api:fetch");

type SdkFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `app` as a fetch: requests go to this server's own app, in process (a relative URL is its path). */
export function appFetch(app: LoopbackFetch): SdkFetch {
  return async (input, init) =>
    app(input instanceof Request ? new Request(input, init) : new Request(new URL(String(input), "http://localhost"), init));
}

/**
 * Binds the SDK's in-process fetch to `app` (the last server started in this process wins, as there is
 * one global); the returned function unbinds it if it is still this one.
 */
export function bindSdkLoopback(app: LoopbackFetch): () => void {
  const sdkFetch = appFetch(app);
  const global = globalThis as { [SDK_FETCH]?: SdkFetch };
  global[SDK_FETCH] = sdkFetch;
  return () => {
    if (global[SDK_FETCH] === sdkFetch) delete global[SDK_FETCH];
  };
}
