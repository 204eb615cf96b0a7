import type { AgentCard } from "@a2a-js/sdk";
import type { Assistant } from "@agent-server/core";

/** The protocol version this adapter speaks, as `@a2a-js/sdk` 1.3.0 names it. */
export const A2A_PROTOCOL_VERSION = "1.0";

/**
 * The agent card of one assistant. `baseUrl` is the JSON-RPC endpoint (`<origin>/a2a/<assistant_id>`),
 * absolute because clients post to the interface URL as given. Skills and capabilities stay minimal
 * for step 1: blocking SendMessage and GetTask only, so streaming and push are declared off.
 */
export function agentCardFor(assistant: Assistant, endpoint: string): AgentCard {
  return {
    name: assistant.name || assistant.graph_id,
    description: assistant.description ?? `Assistant ${assistant.assistant_id} (graph ${assistant.graph_id})`,
    supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: String(assistant.version ?? 1),
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: assistant.graph_id,
        name: assistant.name || assistant.graph_id,
        description: `Runs graph "${assistant.graph_id}"`,
        tags: ["langgraph"],
        examples: [],
        inputModes: ["text/plain"],
        outputModes: ["text/plain", "application/json"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
