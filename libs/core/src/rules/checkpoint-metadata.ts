import { EXCLUDED_METADATA_KEYS } from "@langchain/langgraph-checkpoint";

interface SaverConfig {
  configurable?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/**
 * The metadata a checkpoint is saved with, the same in every driver's saver. LangGraph JS 1.7 saves only
 * `{ source, step, parents, ... }`; the official server adds the run's context, so history can be
 * filtered by it (`POST /threads/{id}/history` with `metadata`):
 * 1. the scalar `configurable` keys (graph_id, assistant_id, user_id, `x-*` headers...), except
 *    `__`-prefixed and LangGraph's excluded coordinates (thread_id, checkpoint_ns, ...);
 * 2. the run config's `metadata` (the assistant's, the request config's and the run's own metadata);
 * 3. `run_id` of the run that wrote it (from `configurable`, else `metadata`), so rollback finds it;
 * 4. what LangGraph passed, which wins.
 * Only scalars come from `configurable`: objects there (the auth user) are not the checkpoint's to keep.
 */
export function checkpointMetadata(config: SaverConfig, metadata: Record<string, unknown>): Record<string, unknown> {
  const fromConfigurable: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config.configurable ?? {})) {
    if (key.startsWith("__") || EXCLUDED_METADATA_KEYS.has(key)) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fromConfigurable[key] = value;
  }
  const runId = config.configurable?.run_id ?? config.metadata?.run_id;
  return {
    ...fromConfigurable,
    ...config.metadata,
    ...(typeof runId === "string" ? { run_id: runId } : {}),
    ...metadata,
  };
}
