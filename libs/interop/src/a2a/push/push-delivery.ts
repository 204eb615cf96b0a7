import { V1PushNotificationSerializer } from "@a2a-js/sdk/server";
import { v5 as uuidv5 } from "uuid";
import { ConflictError, type PushConfig, type Run } from "@agent-server/core";
import type { Engine, RunSettledEvent } from "@agent-server/engine";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { TaskRenderer } from "../tasks/task-renderer.js";

/** Namespace of the (run, config) delivery ids (uuid5), so one notification is enqueued once. */
const DELIVERY_NAMESPACE = "0b7cf0d4-4c55-4f0a-9a55-2f8e3a3c6a41";

const serializer = new V1PushNotificationSerializer();

/** Engines whose settled runs already feed push delivery (a2aRoutes may be built more than once). */
const registered = new WeakSet<Engine>();

/**
 * Feeds A2A push notifications from run settlement: when a run of an A2A task ends (the task's first
 * run, internal `captureResult`, or a continuation whose internal `taskId` names it) — COMPLETED or
 * INPUT_REQUIRED, FAILED, CANCELED — one outbox delivery (kind "a2a_push") is enqueued per config of
 * the task. Nothing is registered when the driver has no `pushConfigs`. Once per engine.
 */
export function registerPushDelivery(deps: A2AHandlerDeps): void {
  if (!deps.storage.pushConfigs || registered.has(deps.engine)) return;
  registered.add(deps.engine);
  deps.engine.onRunSettled(async ({ run, internal, pushConfigs }: RunSettledEvent) => {
    // The terminal write said the task has no config: nothing to look up (a registration racing it
    // enqueues the notification itself, see TaskPushConfigs.register).
    if (!internal?.captureResult || pushConfigs === false) return;
    await enqueueTaskNotifications(deps, run, internal.taskId ?? run.run_id);
  });
}

/**
 * Enqueues the notification of `run` (ended; the first run or a continuation of task `taskId`) for
 * every config of the task. The body is what the SDK's `V1PushNotificationSerializer` makes of a
 * `StreamResponse` holding the task as GetTask renders it for this run — its state, and the artifacts
 * of the result recorded for it (`{"task": {...}}`, `application/a2a+json`); it is stored as the
 * serialized string and posted verbatim. Headers: `X-A2A-Notification-Token` when the config has a
 * token, `Authorization: <scheme> <credentials>` when it has authentication. The outbox retries with
 * backoff and survives restarts. The delivery id is derived from (run, config): a second enqueue of
 * the same notification is refused by the driver and ignored here. Signing (Standard Webhooks, with the
 * server's secret) is the outbox's, at each attempt: the timestamp is the attempt's, and that derived id
 * is the `webhook-id`, so a receiver sees one id for a notification however often it is retried.
 */
export async function enqueueTaskNotifications(deps: A2AHandlerDeps, run: Run, taskId: string): Promise<void> {
  const repo = deps.storage.pushConfigs;
  if (!repo) return;
  const configs = await repo.list(taskId);
  if (configs.length === 0) return;
  const first = (await deps.storage.runs.get(taskId)) ?? run;
  const task = await new TaskRenderer(deps.storage).render(first, run);
  const { body, contentType } = serializer.serialize({ payload: { $case: "task", value: task } }, task);
  let failure: unknown;
  for (const config of configs) {
    try {
      await deps.engine.outbox.enqueue({
        kind: "a2a_push",
        url: config.url,
        payload: body,
        runId: run.run_id,
        headers: { "content-type": contentType, ...pushHeaders(config) },
        deliveryId: uuidv5(`${run.run_id}/${config.config_id}`, DELIVERY_NAMESPACE),
      });
    } catch (error) {
      // Already enqueued (see above); any other failure is reported after the remaining configs had their turn.
      if (!(error instanceof ConflictError)) failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

function pushHeaders(config: PushConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.token) headers["X-A2A-Notification-Token"] = config.token;
  if (config.authentication?.scheme && config.authentication.credentials) {
    headers["Authorization"] = `${config.authentication.scheme} ${config.authentication.credentials}`;
  }
  return headers;
}
