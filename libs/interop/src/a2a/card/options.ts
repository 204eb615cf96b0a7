import type { Assistant } from "@agent-server/core";
import type { A2AConfig } from "@agent-server/engine";

/** The card settings of langgraph.json's `a2a` block (`card`, `agents`, `security`), as the engine validated them. */
export type A2ACardConfig = Pick<A2AConfig, "card" | "agents" | "security">;

/** What an extended-card hook is told about the request: the authenticated caller and the agent. */
export interface ExtendedCardContext {
  /**
   * The caller as the project's `authenticate` returned it (`identity`, `permissions`, ... plus its own
   * fields); null when the server runs without custom auth (every caller is anonymous then).
   */
  user: Readonly<Record<string, unknown>> | null;
  assistant: Assistant;
}

/**
 * langgraph.json `a2a.extended_card`, loaded: given the public card as A2A v1.0 JSON (a fresh copy it may
 * change), returns the card an authenticated caller gets, as v1.0 JSON.
 */
export type ExtendedCardHook = (card: Record<string, unknown>, context: ExtendedCardContext) => unknown;

/**
 * Everything an agent card is built from besides the assistant and its URL. Built once per app (a2aRoutes)
 * from the config, so a new card feature is a new field here rather than a new parameter everywhere.
 */
export interface AgentCardOptions {
  /** The storage driver keeps push notification configs (`Storage.pushConfigs`). */
  pushNotifications?: boolean | undefined;
  /** langgraph.json `a2a.card`, `a2a.agents`, `a2a.security`. */
  config?: A2ACardConfig | undefined;
  /**
   * The server authenticates requests (langgraph.json `auth.path`): the card then declares the security
   * scheme (`a2a.security`, default HTTP bearer), and the extended card needs an authenticated caller.
   */
  authConfigured?: boolean | undefined;
  /** The `description` of a graph's langgraph.json entry (the engine registry's). */
  graphDescription?: ((graphId: string) => string | undefined) | undefined;
  /** The loaded `a2a.extended_card`; the card says `capabilities.extendedAgentCard: true` when set. */
  extendedCard?: ExtendedCardHook | undefined;
  /**
   * Told about an assistant's `metadata.a2a` fields that are not valid card fields (they are left out of
   * the card): the assistants API takes any metadata, so they are only found when a card is built.
   */
  warn?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
  /**
   * Set per request when the A2A gRPC server runs: its URL as this client reaches it (`dns:///host:port`) and
   * the tenant naming this assistant there; the card then lists a `GRPC` interface.
   */
  grpc?: { url: string; tenant: string } | undefined;
}
