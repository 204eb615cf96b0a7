import type { AgentCard } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type RequestOptions,
  type TransportFactory,
} from "@a2a-js/sdk/client";
import { context, propagation } from "@opentelemetry/api";
import { selfFetch } from "./hooks.js";
import type { HeadersCall, ResolvedOptions } from "./options.js";

/**
 * The client of one remote agent: its card read once (on the first call, not when the graph loads: the
 * agent may be this very server, not yet listening then), and `@a2a-js/sdk`'s client made from it, so
 * the card decides the binding. gRPC is offered only when the card lists it and `@grpc/grpc-js` is
 * installed (it is the SDK's optional peer). A card that cannot be read is read again on the next call.
 */
export class RemoteConnection {
  private connecting: Promise<{ client: Client; card: AgentCard }> | undefined;
  private known: AgentCard | undefined;

  constructor(readonly options: ResolvedOptions) {}

  /** The agent's URL; a path is an agent of this server, reached through its app (`SELF_ORIGIN` is never dialled). */
  url(): string {
    const { url } = this.options;
    return url.startsWith("/") ? `${SELF_ORIGIN}${url}` : url;
  }

  /** The network's fetch, or this server's app for an agent named by a path. */
  private fetcher(): typeof fetch {
    if (!this.options.url.startsWith("/")) return fetch;
    const app = selfFetch();
    if (!app)
      throw new Error(`remoteAgent: "${this.options.url}" names an agent of this server, but the graph does not run in agent-server`);
    return app;
  }

  /** The card, once a call has read it. */
  card(): AgentCard | undefined {
    return this.known;
  }

  /** The name calls are reported under: the options', else the card's, else the URL. */
  agentName(): string {
    return this.options.name ?? (this.known?.name || this.options.url);
  }

  client(signal?: AbortSignal): Promise<{ client: Client; card: AgentCard }> {
    this.connecting ??= this.connect(signal).then(
      (made) => {
        this.known = made.card;
        return made;
      },
      (error: unknown) => {
        this.connecting = undefined;
        throw error;
      },
    );
    return this.connecting;
  }

  /**
   * Options for one call: the caller's headers (fresh for every call), the active trace's `traceparent`
   * (so a chain of servers is one trace), and a signal that ends with the run's or after `timeoutMs`.
   */
  async requestOptions(operation: HeadersCall["operation"], signal: AbortSignal | undefined, timeoutMs?: number): Promise<RequestOptions> {
    const serviceParameters = { ...(await this.headers(operation)) };
    propagation.inject(context.active(), serviceParameters);
    const signals = [signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    return { serviceParameters, ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}) };
  }

  private async headers(operation: HeadersCall["operation"]): Promise<Record<string, string>> {
    const { headers } = this.options;
    if (!headers) return {};
    return typeof headers === "function" ? await headers({ url: this.url(), operation }) : headers;
  }

  private async connect(signal: AbortSignal | undefined): Promise<{ client: Client; card: AgentCard }> {
    const url = this.url();
    const fetcher = this.fetcher();
    // The card request carries the same headers as every call: an agent may keep its card behind auth.
    const cardHeaders = await this.headers("card");
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(cardHeaders)) if (!headers.has(name)) headers.set(name, value);
      return fetcher(input, { ...init, headers, signal: init?.signal ?? signal ?? null });
    };
    const resolver = new DefaultAgentCardResolver({ fetchImpl });
    // The SDK resolves the card's path relative to the URL: the agent's URL is a folder.
    const card = url.endsWith(".json") ? await resolver.resolve(url, "") : await resolver.resolve(`${url}/`);
    const transports: TransportFactory[] = [
      new JsonRpcTransportFactory({ fetchImpl: fetcher }),
      new RestTransportFactory({ fetchImpl: fetcher }),
    ];
    // This server's own agents are called through its app: HTTP bindings only.
    if (fetcher === fetch && card.supportedInterfaces.some((i) => i.protocolBinding === "GRPC")) {
      const grpc = await loadGrpcTransport();
      if (grpc) transports.push(grpc);
    }
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports, cardResolver: resolver }),
    );
    return { client: await factory.createFromAgentCard(card), card };
  }
}

/** The origin of URLs that name this server's own agents (sent through its app, never resolved). */
const SELF_ORIGIN = "http://agent-server.self";

async function loadGrpcTransport(): Promise<TransportFactory | undefined> {
  try {
    const { GrpcTransportFactory } = await import("@a2a-js/sdk/client/grpc");
    return new GrpcTransportFactory();
  } catch {
    return undefined;
  }
}
