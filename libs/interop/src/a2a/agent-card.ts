import { AgentCard } from "@a2a-js/sdk";
import type { Assistant } from "@agent-server/core";

/** The protocol version this adapter speaks, as `@a2a-js/sdk` 1.3.0 names it. */
export const A2A_PROTOCOL_VERSION = "1.0";
/** The legacy protocol version accepted on the JSON-RPC URL (requests without `A2A-Version: 1.0`). */
export const A2A_LEGACY_PROTOCOL_VERSION = "0.3";

export interface AgentCardOptions {
  pushNotifications?: boolean;
  grpc?: { url: string; tenant: string } | undefined;
}

/**
 * The agent card of one assistant. `endpoint` is `<origin>/a2a/<assistant_id>`, absolute because clients
 * call the interface URLs as given. It serves:
 * - JSON-RPC v1.0 at `endpoint` (POST),
 * - HTTP+JSON v1.0 under `endpoint` (`/message:send`, `/tasks/{id}`, ...),
 * - legacy JSON-RPC v0.3 at `endpoint` (requests without `A2A-Version: 1.0`); the SDK's server-side
 *   `validateVersion` needs that interface declared to accept "0.3".
 *
 * `pushNotifications` is true when the storage driver keeps push notification configs
 * (`Storage.pushConfigs`); the routes pass it. `grpc`, when the A2A gRPC server runs: its address as
 * clients reach it (`host:port`) and the tenant naming this assistant there (one gRPC port serves every
 * assistant), declared as a further `GRPC` interface.
 */
export function agentCardFor(assistant: Assistant, endpoint: string, options: AgentCardOptions = {}): AgentCard {
  const name = assistant.name || assistant.graph_id;
  return {
    name,
    description: assistant.description ?? `Assistant ${assistant.assistant_id} (graph ${assistant.graph_id})`,
    supportedInterfaces: [
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url: endpoint, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
      ...(options.grpc
        ? [{ url: options.grpc.url, protocolBinding: "GRPC", tenant: options.grpc.tenant, protocolVersion: A2A_PROTOCOL_VERSION }]
        : []),
    ],
    provider: undefined,
    version: String(assistant.version ?? 1),
    capabilities: { streaming: true, pushNotifications: options.pushNotifications ?? false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: assistant.graph_id,
        name,
        description: assistant.description ?? `Runs graph "${assistant.graph_id}"`,
        tags: ["langgraph", assistant.graph_id],
        examples: [],
        inputModes: ["text/plain"],
        outputModes: ["text/plain", "application/json"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * The card as served: the v1.0 proto JSON, plus the v0.3 top-level fields beside it (`url`,
 * `preferredTransport`, `protocolVersion: "0.3.0"`, `additionalInterfaces`) so v0.3 clients find the
 * JSON-RPC endpoint. v1.0 clients ignore them: a card with a non-empty `supportedInterfaces` is read
 * as v1.0 (the SDK's `isLegacyAgentCard`).
 */
export function agentCardJson(card: AgentCard): Record<string, unknown> {
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC");
  if (!jsonRpc) return json;
  return {
    ...json,
    url: jsonRpc.url,
    preferredTransport: "JSONRPC",
    protocolVersion: "0.3.0",
    additionalInterfaces: [{ url: jsonRpc.url, transport: "JSONRPC" }],
  };
}
