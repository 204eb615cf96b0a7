import type { Assistant } from "@agent-server/core";
import type { A2AHandlerDeps } from "./handler-deps.js";

/** The assistant an A2A request names (assistant id or graph name), or null when there is none. */
export async function findAssistant(deps: A2AHandlerDeps, idOrGraph: string): Promise<Assistant | null> {
  return deps.engine.assistants.get(deps.engine.registry.resolveAssistantId(idOrGraph));
}

/**
 * The agent a request that names none is for (the domain-root card, a gRPC call with an empty tenant):
 * langgraph.json `a2a.default_assistant`, else the only graph when the project has exactly one.
 */
export function defaultAssistantOf(deps: A2AHandlerDeps, configured: string | undefined): string | undefined {
  if (configured) return configured;
  const ids = deps.engine.registry.ids();
  return ids.length === 1 ? ids[0] : undefined;
}
