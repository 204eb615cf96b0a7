import type { A2ALogger } from "../request-errors.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import type { A2ACardConfig, AgentCardOptions, ExtendedCardHook } from "./options.js";

/** What the server's configuration says about cards, given to every binding that builds them (routes, gRPC). */
export interface A2ACardSettings {
  /** langgraph.json `a2a.card`, `a2a.agents` and `a2a.security`: what the cards say (docs/a2a.md, "Card configuration"). */
  cardConfig?: A2ACardConfig | undefined;
  /**
   * The server authenticates requests (langgraph.json `auth.path`): cards declare the security scheme,
   * and the extended card is only given to authenticated callers. Default false: the routes cannot tell
   * an `Auth` that authenticates from one that does not (agent-server passes `authenticatesRequests(auth)`).
   */
  authConfigured?: boolean | undefined;
  /** langgraph.json `a2a.extended_card`, loaded (the server loads the file or module at start-up). */
  extendedCard?: ExtendedCardHook | undefined;
}

/** The card options of one binding, built once from the settings, the driver and the graph registry. */
export function agentCardOptions(deps: A2AHandlerDeps, settings: A2ACardSettings, logger: A2ALogger): AgentCardOptions {
  // Cards are built on every A2A request: a bad `metadata.a2a` field is reported once per assistant version.
  const reported = new Set<string>();
  return {
    pushNotifications: deps.storage.pushConfigs !== undefined,
    config: settings.cardConfig,
    authConfigured: settings.authConfigured ?? false,
    graphDescription: (graphId) => deps.engine.registry.description(graphId),
    extendedCard: settings.extendedCard,
    warn: (fields, message) => {
      const key = `${String(fields.assistant_id)}@${String(fields.assistant_version)} ${message}`;
      if (reported.has(key)) return;
      if (reported.size >= 1000) reported.clear();
      reported.add(key);
      (logger.warn ?? logger.error).call(logger, fields, message);
    },
  };
}
