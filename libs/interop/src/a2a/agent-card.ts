import { AgentCard } from "@a2a-js/sdk";
import type { Assistant } from "@agent-server/core";
import { cardFields } from "./card/fields.js";
import type { AgentCardOptions } from "./card/options.js";
import { cardSecurity, legacySecurity, legacySecurityScheme } from "./card/security.js";

/** The protocol version this adapter speaks, as `@a2a-js/sdk` 1.3.0 names it. */
export const A2A_PROTOCOL_VERSION = "1.0";
/** The legacy protocol version accepted on the JSON-RPC URL (requests without `A2A-Version: 1.0`). */
export const A2A_LEGACY_PROTOCOL_VERSION = "0.3";

/**
 * The agent card of one assistant. `endpoint` is `<origin>/a2a/<assistant_id>`, absolute because clients
 * call the interface URLs as given. It serves:
 * - JSON-RPC v1.0 at `endpoint` (POST),
 * - HTTP+JSON v1.0 under `endpoint` (`/message:send`, `/tasks/{id}`, ...),
 * - legacy JSON-RPC v0.3 at `endpoint` (requests without `A2A-Version: 1.0`); the SDK's server-side
 *   `validateVersion` needs that interface declared to accept "0.3".
 *
 * Name, description, version, provider, URLs, modes and skills: card/fields.ts (langgraph.json `a2a`
 * and the assistant). Security schemes: card/security.ts. `pushNotifications` is true when the storage
 * driver keeps push notification configs (`Storage.pushConfigs`); `extendedAgentCard` when
 * `a2a.extended_card` is loaded. `grpc` (per request, when the A2A gRPC server runs): its URL as
 * clients reach it (`dns:///host:port`, transports/grpc.ts `grpcInterfaceUrl`) and the tenant naming this
 * assistant there (one gRPC port serves every assistant), declared as a further `GRPC` interface.
 */
export function agentCardFor(assistant: Assistant, endpoint: string, options: AgentCardOptions = {}): AgentCard {
  const fields = cardFields(assistant, options);
  const security = cardSecurity(options.config?.security, options.authConfigured ?? false);
  return {
    name: fields.name,
    description: fields.description,
    supportedInterfaces: [
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url: endpoint, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
      ...(options.grpc
        ? [{ url: options.grpc.url, protocolBinding: "GRPC", tenant: options.grpc.tenant, protocolVersion: A2A_PROTOCOL_VERSION }]
        : []),
    ],
    provider: fields.provider,
    version: fields.version,
    // Only set when configured: an empty URL is not "no URL" to every reader.
    ...(fields.documentationUrl !== undefined ? { documentationUrl: fields.documentationUrl } : {}),
    ...(fields.iconUrl !== undefined ? { iconUrl: fields.iconUrl } : {}),
    capabilities: {
      streaming: true,
      pushNotifications: options.pushNotifications ?? false,
      extensions: [],
      extendedAgentCard: options.extendedCard !== undefined,
    },
    securitySchemes: security.securitySchemes,
    securityRequirements: security.securityRequirements,
    defaultInputModes: fields.defaultInputModes,
    defaultOutputModes: fields.defaultOutputModes,
    skills: fields.skills,
    signatures: [],
  };
}

/**
 * The card as served: the v1.0 proto JSON, plus the v0.3 top-level fields beside it (`url`,
 * `preferredTransport`, `protocolVersion: "0.3.0"`, `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, `security`) so v0.3 clients find the JSON-RPC endpoint and what
 * it needs. v1.0 clients ignore them: a card with a non-empty `supportedInterfaces` is read as v1.0 (the
 * SDK's `isLegacyAgentCard`). Fields both versions name alike (name, description, version, provider,
 * documentationUrl, iconUrl, capabilities, modes, skills) are shared; v0.3 requires the mode and tag
 * lists that v1.0 JSON leaves out when empty, so they are always written. Each security scheme carries
 * both shapes (v1.0 `httpAuthSecurityScheme: {...}` and v0.3 `type: "http", scheme: "bearer"`).
 */
export function agentCardJson(card: AgentCard): Record<string, unknown> {
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC");
  if (!jsonRpc) return json;
  const v1Schemes = (json.securitySchemes ?? {}) as Record<string, Record<string, unknown>>;
  const skills = (json.skills ?? []) as Array<Record<string, unknown>>;
  return {
    ...json,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: skills.map((skill) => ({ tags: [], ...skill })),
    securitySchemes: Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, { ...legacySecurityScheme(scheme), ...v1Schemes[name] }]),
    ),
    url: jsonRpc.url,
    preferredTransport: "JSONRPC",
    protocolVersion: "0.3.0",
    additionalInterfaces: [{ url: jsonRpc.url, transport: "JSONRPC" }],
    supportsAuthenticatedExtendedCard: card.capabilities?.extendedAgentCard === true,
    security: legacySecurity(card.securityRequirements),
  };
}
