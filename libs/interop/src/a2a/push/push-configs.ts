import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { v4 as uuidv4 } from "uuid";
import type { PushConfig, PushConfigRepo, Run } from "@agent-server/core";
import { A2A_LEGACY_PROTOCOL_VERSION } from "../agent-card.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { enqueueTaskNotifications } from "./push-delivery.js";

/**
 * A validated config without its task: what `PushConfigRepo.put` stores besides `run_id`. An empty
 * `config_id` stands for the task's id (a v0.3 config sent without one, whose task may not exist yet).
 */
export type RequestedPushConfig = Omit<PushConfig, "run_id" | "created_at">;

/**
 * Which protocol version's config-id rules a call follows. v0.3 (a request without `A2A-Version: 1.0`;
 * the SDK's ServerCallContext says "0.3" then): a config set without an id gets the task's id, and
 * Get/Delete without a config id mean the config whose id is the task's id — what the v0.3 a2a-js
 * `DefaultRequestHandler` did. v1.0: a config without an id gets a generated one, and Get/Delete need
 * the config id (REQUIRED in the v1.0 proto). A call without a context (in-process) is v1.0.
 */
export type PushIdRules = "v0.3" | "v1.0";

export function pushIdRules(context: ServerCallContext | undefined): PushIdRules {
  return context?.requestedVersion === A2A_LEGACY_PROTOCOL_VERSION ? "v0.3" : "v1.0";
}

/**
 * The task (its first run) the caller may `action`, or TaskNotFoundError (-32001) — the request
 * handler's `requireTask`, so push configs are scoped exactly like every other task operation.
 */
export type TaskLookup = (taskId: string, action: "read" | "update") => Promise<Run>;

/** The v0.3 name of a task's config set without an id (see `TaskPushConfigs.v03Fallback`). */
const V03_DEFAULT_CONFIG_ID = "default";

/** What a config's `authentication.scheme` may be (an HTTP auth-scheme token, RFC 9110). */
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header values (token, credentials) must not smuggle further header lines. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A2A push notification configs of tasks, stored in `Storage.pushConfigs` keyed by (task id = first
 * run id, config id). Without that repo every method answers PushNotificationNotSupported (-32003) and
 * the card says `pushNotifications: false`. Reading configs needs `read` on the task, creating and
 * deleting `update`; an unknown or invisible task is TaskNotFound (-32001), as is an unknown config id
 * on Get (as the SDK's DefaultRequestHandler does). Delete of an unknown config id succeeds. Config ids
 * default as `PushIdRules` says for the call's protocol version.
 */
export class TaskPushConfigs {
  constructor(private readonly deps: A2AHandlerDeps) {}

  async create(params: TaskPushNotificationConfig, task: TaskLookup, rules: PushIdRules = "v1.0"): Promise<TaskPushNotificationConfig> {
    const repo = this.repo();
    const config = this.parse(params, rules);
    const first = await task(params.taskId, "update");
    const stored = await repo.put({ run_id: first.run_id, ...config, config_id: config.config_id || first.run_id });
    if (!stored) throw new TaskNotFoundError(`task "${params.taskId}" not found`);
    return toTaskPushNotificationConfig(stored);
  }

  async get(
    params: GetTaskPushNotificationConfigRequest,
    task: TaskLookup,
    rules: PushIdRules = "v1.0",
  ): Promise<TaskPushNotificationConfig> {
    const repo = this.repo();
    const configId = requiredConfigId(params.id, params.taskId, rules);
    const first = await task(params.taskId, "read");
    const stored =
      (await repo.get(first.run_id, configId)) ?? (rules === "v0.3" ? await this.v03Fallback(first.run_id, params.id) : undefined);
    if (!stored) throw new TaskNotFoundError(`push notification config "${configId}" not found for task "${params.taskId}"`);
    return toTaskPushNotificationConfig(stored);
  }

  /**
   * A v0.3 Get that found nothing under its id. Without an id, the v0.3 specification says the server
   * returns one of the task's configs: the oldest. The id `"default"` names the config set without an
   * id (stored under the task's id, as both reference SDKs store it) unless a config has that id itself:
   * the v0.3 TCK, written against the Python SDK (whose Get ignores the id), sets a config without an id
   * and gets it back as "default".
   */
  private async v03Fallback(taskId: string, configId: string | undefined): Promise<PushConfig | null | undefined> {
    if (!configId) return (await this.repo().list(taskId))[0];
    if (configId === V03_DEFAULT_CONFIG_ID) return this.repo().get(taskId, taskId);
    return undefined;
  }

  /** Oldest first; `pageSize` 0 (unset) means all, `pageToken` is the offset. */
  async list(params: ListTaskPushNotificationConfigsRequest, task: TaskLookup): Promise<ListTaskPushNotificationConfigsResponse> {
    const repo = this.repo();
    const offset = params.pageToken ? Number(params.pageToken) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new RequestMalformedError(`invalid pageToken "${params.pageToken}"`);
    if (!Number.isInteger(params.pageSize) || params.pageSize < 0)
      throw new RequestMalformedError("pageSize must be a non-negative integer");
    const first = await task(params.taskId, "read");
    const all = await repo.list(first.run_id);
    const end = params.pageSize > 0 ? offset + params.pageSize : all.length;
    return {
      configs: all.slice(offset, end).map(toTaskPushNotificationConfig),
      nextPageToken: end < all.length ? String(end) : "",
    };
  }

  async delete(params: DeleteTaskPushNotificationConfigRequest, task: TaskLookup, rules: PushIdRules = "v1.0"): Promise<void> {
    const repo = this.repo();
    const configId = requiredConfigId(params.id, params.taskId, rules);
    const first = await task(params.taskId, "update");
    // v0.3 "default" is the config set without an id, as for Get, when no config has that id itself.
    const deleted = await repo.delete(first.run_id, configId);
    if (!deleted && rules === "v0.3" && configId === V03_DEFAULT_CONFIG_ID) await repo.delete(first.run_id, first.run_id);
  }

  /**
   * The config a SendMessage carries (`configuration.taskPushNotificationConfig`), validated before
   * anything is created; undefined when it carries none. Its `taskId` is ignored: the config belongs
   * to the task the message creates or continues (whose id a v0.3 config without an id gets).
   */
  requested(params: SendMessageRequest, rules: PushIdRules = "v1.0"): RequestedPushConfig | undefined {
    const config = params.configuration?.taskPushNotificationConfig;
    if (!config) return undefined;
    this.repo();
    return this.parse(config, rules);
  }

  /**
   * `parsePushConfig`, then the server's webhook URL policy (langgraph.json `webhooks.url` and the
   * server mode, as for run webhooks): a refused URL is InvalidParams (-32602) before anything is
   * written. Host names are resolved when the notification is sent, where every address is checked.
   */
  private parse(config: TaskPushNotificationConfig, rules: PushIdRules): RequestedPushConfig {
    const parsed = parsePushConfig(config, rules);
    const refusal = this.deps.engine.outbox.urlRefusal(parsed.url);
    if (refusal) throw new RequestMalformedError(`push notification url refused: ${refusal}`);
    return parsed;
  }

  /**
   * Registers a SendMessage's config on task `taskId` once `run` (its new first run or continuation)
   * exists. The run may have ended before the config was stored (it executes as soon as it is
   * admitted), so settlement's notification may have missed it: if the run has ended by now, its
   * notification is enqueued here. Delivery ids are derived from (run, config), so the two paths
   * never enqueue one notification twice.
   */
  async register(taskId: string, config: RequestedPushConfig, run: Run): Promise<void> {
    // Registered with `run`: its settlement sees the config even when the two race (PushConfigRepo.put).
    const stored = await this.repo().put({ run_id: taskId, ...config, config_id: config.config_id || taskId }, { run: run.run_id });
    if (!stored) return; // the task is gone again (rolled back): nothing to notify about
    const now = await this.deps.storage.runs.get(run.run_id);
    if (now && now.status !== "pending" && now.status !== "running") {
      await enqueueTaskNotifications(this.deps, now, taskId);
    }
  }

  private repo(): PushConfigRepo {
    const repo = this.deps.storage.pushConfigs;
    if (!repo) throw new PushNotificationNotSupportedError("push notifications are not supported by this server's storage driver");
    return repo;
  }
}

/**
 * A client's config, checked: the URL must be an absolute http(s) URL; a token and credentials are
 * header values (no control characters); an authentication scheme is an HTTP auth-scheme token and is
 * required when credentials are given. Invalid -> InvalidParams (-32602). Without an id, v1.0 rules
 * generate one; v0.3 rules leave it empty, for the task's id.
 */
export function parsePushConfig(config: TaskPushNotificationConfig, rules: PushIdRules = "v1.0"): RequestedPushConfig {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new RequestMalformedError(`push notification url must be an absolute http(s) URL, got "${config.url}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RequestMalformedError(`push notification url must be an absolute http(s) URL, got "${config.url}"`);
  }
  if (CONTROL.test(config.id)) throw new RequestMalformedError("push notification config id must not contain control characters");
  if (CONTROL.test(config.token)) throw new RequestMalformedError("push notification token must not contain control characters");
  const scheme = config.authentication?.scheme ?? "";
  const credentials = config.authentication?.credentials ?? "";
  if (scheme && !SCHEME.test(scheme)) throw new RequestMalformedError(`invalid authentication scheme "${scheme}"`);
  if (credentials && !scheme) throw new RequestMalformedError("authentication.scheme is required with credentials");
  if (CONTROL.test(credentials)) throw new RequestMalformedError("authentication credentials must not contain control characters");
  return {
    config_id: config.id || (rules === "v1.0" ? uuidv4() : ""),
    url: config.url,
    token: config.token || null,
    authentication: scheme ? { scheme, credentials } : null,
  };
}

/**
 * The config id a Get or Delete names. v0.3: none (absent or empty) means the task's id. v1.0: the id is
 * required, so none is InvalidParams (-32602) rather than a lookup that cannot succeed.
 */
function requiredConfigId(id: string | undefined, taskId: string, rules: PushIdRules): string {
  if (id) return id;
  if (rules === "v0.3") return taskId;
  throw new RequestMalformedError("id is required: the id of the task's push notification config");
}

export function toTaskPushNotificationConfig(config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: "",
    id: config.config_id,
    taskId: config.run_id,
    url: config.url,
    token: config.token ?? "",
    authentication: config.authentication ? { ...config.authentication } : undefined,
  };
}
