import type { RunCreateRequest } from "./run-request.js";

/**
 * Rules every API that creates runs applies the same way (the LangGraph HTTP API, MCP tool calls), so a
 * graph and an auth handler see a run alike whichever way it was asked for.
 */

/** Headers the official server never copies into a run's config (credentials and tenancy). */
const PRIVATE_HEADERS = new Set(["x-api-key", "x-tenant-id", "x-service-key"]);

/**
 * The request headers a run's `config.configurable` gets, as the official server copies them so graphs
 * can read them: every `x-*` header except credentials, and `user-agent`. Keys lowercased.
 */
export function configurableFromHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const [rawKey, value] of headers) {
    const key = rawKey.toLowerCase();
    if ((key.startsWith("x-") && !PRIVATE_HEADERS.has(key)) || key === "user-agent") copied[key] = value;
  }
  return copied;
}

/**
 * The run as a `threads:create_run` auth handler sees it, in the official server's shape. The handler may
 * change its `metadata` in place: the caller then creates the run with that metadata.
 */
export function createRunAuthValue(threadId: string | null, request: RunCreateRequest): Record<string, unknown> {
  const strategy = request.multitask_strategy ?? "reject";
  return {
    thread_id: threadId,
    assistant_id: request.assistant_id,
    status: "pending",
    metadata: { ...(request.metadata ?? {}) },
    prevent_insert_if_inflight: strategy === "reject",
    multitask_strategy: strategy,
    if_not_exists: request.if_not_exists ?? "reject",
    after_seconds: request.after_seconds ?? 0,
    kwargs: {
      input: request.input,
      command: request.command,
      config: request.config,
      context: request.context,
      stream_mode: request.stream_mode,
      webhook: request.webhook,
    },
  };
}
