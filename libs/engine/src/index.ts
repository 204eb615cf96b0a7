export { Engine, type EngineOptions, type CancelAction } from "./engine.js";
export { GraphRegistry, systemAssistantId, GRAPH_ASSISTANT_NAMESPACE, type SchemaWaitOptions } from "./graphs/registry.js";
export { loadGraph, parseGraphSpec, type GraphSpec } from "./graphs/load-graph.js";
export type { CompiledGraph } from "./graphs/types.js";
export type { GraphAccess, GraphUser, ServerRuntime } from "./graphs/server-runtime.js";
export type { GraphSchemaSet, JsonSchema, StaticSchemaOptions } from "./graphs/schemas/index.js";
export {
  loadLangGraphConfig,
  applyEnv,
  LangGraphConfigSchema,
  type LangGraphConfig,
  type LoadedConfig,
} from "./config/langgraph-config.js";
export type { HttpCorsConfig } from "./config/http-cors.js";
export {
  A2AConfigSchema,
  A2AAgentCardSchema,
  type A2AConfig,
  type A2ACardDefaults,
  type A2AAgentCardConfig,
  type A2ASkillConfig,
  type A2ASecuritySchemeConfig,
} from "./config/a2a.js";
export { McpConfigSchema, type McpConfig } from "./config/mcp.js";
export { unsupportedConfigKeys } from "./config/unsupported-keys.js";
export { systemAssistantDefaultsFromEnv, type SystemAssistantDefaults } from "./config/system-assistant-defaults.js";
export { REJECT_MESSAGE, CheckpointNotFoundError } from "./runs/admission.js";
export { CancelReasons } from "./runs/cancel-reason.js";
export type { HeldThreadLock } from "./runs/thread-lock.js";
export type { AdmissionOptions, RunCreateRequest, RunCommand, StreamMode, EngineRunKwargs, RunAuthContext } from "./runs/run-request.js";
export { configurableFromHeaders, createRunAuthValue } from "./runs/run-request-rules.js";
export type { RunEnd } from "./runs/waiters.js";
export { deleteThreadEventually } from "./runs/storage-retry.js";
export type { RunSettledEvent, RunSettledListener, SettlementStep } from "./runs/settlement.js";
export type { BackgroundTask, RunLogger } from "./runs/run-logger.js";
export type { EngineObserver, DeliveryOutcome, RunRequeueReason } from "./observe/index.js";
export { currentRunContext, type RunContext } from "./runs/run-context.js";
export { defaultReply } from "./runs/outcome.js";
export { nextRunDate } from "./crons/scheduler.js";
export type { RunEventStream } from "./streaming/stream-hub.js";
export type { StreamEvent } from "./streaming/types.js";
export { streamNamespaceFilter } from "./streaming/stream-namespaces.js";
export type { LifecycleEventData, SubgraphStatus } from "./streaming/subgraph-lifecycle.js";
export type { StreamEndStatus } from "./streaming/run-stream-end.js";
export * from "./threads/index.js";
export { isRelativeWebhook } from "@agent-server/core";
export type { LoopbackFetch, OutboxDelivery } from "./webhooks/outbox.js";
export { outboundUrlPolicy, webhookSigningKey, WebhooksConfigSchema, type ServerMode, type WebhooksConfig } from "./config/webhooks.js";
export { WEBHOOK_SECRET_ENV } from "./webhooks/signing.js";
export { ttlOptions, type TtlOptions } from "./config/ttl.js";
export { TtlSweeper, type TtlSweepKind } from "./ttl/ttl-sweeper.js";
export * from "./protocol/index.js";
export { RunTimedOut } from "./runs/run-timeout.js";
export { StoreIndexSchema, storeIndexSettings, type StoreIndexConfig } from "./store-index/config.js";
export { EMBEDDING_PROVIDERS, isFileSpec, loadEmbedder, type Embedder } from "./store-index/embeddings.js";
export { openStoreIndex, type StoreIndexLog } from "./store-index/open.js";
export { reindexStore, type ReindexProgress } from "./store-index/reindex.js";
export { hasVectorSupport, REINDEX_COMMAND, StoreIndex } from "./store-index/store-index.js";
