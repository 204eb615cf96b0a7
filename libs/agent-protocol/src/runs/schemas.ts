import { z } from "@hono/zod-openapi";
import { isRelativeWebhook } from "@agent-server/engine";

/**
 * Request and response shapes of the runs API, as `@langchain/langgraph-sdk` 1.15 sends and reads them
 * (client/runs/index.js) and as the official server's `RunCreate` (langgraph-api schemas.mts) accepts
 * them. Optional fields are nullish: the Python SDK and other clients send null for "not given".
 *
 * Unknown body fields are accepted and dropped, as the official server's zod objects do (the SDK sends
 * `checkpoint_during`, `durability`, which this server does not act on). Dropping them
 * is also what keeps a body from smuggling server-private facts: nothing here maps to `RunInternal`.
 */

const Metadata = z.record(z.string(), z.unknown());

/**
 * Longest `after_seconds`: one year. The delay becomes the run's start date; far beyond that the date is
 * out of range (9e12 s is), and a run scheduled years ahead is a cron's job (docs/limits.md).
 */
export const MAX_AFTER_SECONDS = 365 * 24 * 60 * 60;

export const STREAM_MODES = [
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "custom",
  "events",
  "debug",
  "tasks",
  "checkpoints",
  "tools",
  "lifecycle",
] as const;

const StreamModeEnum = z.enum(STREAM_MODES);

export const RunConfig = z
  .object({
    tags: z.array(z.string()).nullish(),
    recursion_limit: z.number().int().nullish(),
    configurable: z.record(z.string(), z.unknown()).nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  })
  .catchall(z.unknown())
  .openapi("RunConfig", { description: "RunnableConfig of the run, merged over the assistant's and the thread's." });

const GotoTarget = z.union([z.string(), z.object({ node: z.string(), input: z.unknown().optional() })]);

export const RunCommand = z
  .object({
    resume: z.unknown().optional(),
    update: z.union([z.record(z.string(), z.unknown()), z.array(z.tuple([z.string(), z.unknown()]))]).nullish(),
    goto: z.union([GotoTarget, z.array(GotoTarget)]).nullish(),
  })
  .openapi("RunCommand", { description: "Resume an interrupt, update state, or jump to nodes." });

const CheckpointRef = z
  .object({
    checkpoint_id: z.string().nullish(),
    checkpoint_ns: z.string().nullish(),
    checkpoint_map: z.record(z.string(), z.unknown()).nullish(),
  })
  .openapi("RunCheckpoint");

const NodeList = z.union([z.literal("*"), z.array(z.string())]);

/**
 * Where the run's outcome is POSTed: an http(s) URL, or a path on this server ("/hooks/done"), which
 * is delivered in-process to the server's own routes (the project's `http.app`), as the official
 * server does.
 */
export const WebhookUrl = z
  .string()
  .refine((value) => isRelativeWebhook(value) || z.url({ protocol: /^https?$/ }).safeParse(value).success, {
    message: "expected an http(s) URL or a path on this server starting with /",
  })
  .describe("An http(s) URL, or a path ('/hooks/done') delivered in-process to this server's own routes.");

export const RunCreate = z
  .object({
    assistant_id: z.string().min(1).describe("Assistant id, or a graph name."),
    input: z.unknown().optional(),
    command: RunCommand.nullish(),
    config: RunConfig.nullish(),
    context: z.unknown().optional(),
    metadata: Metadata.nullish(),
    stream_mode: z.union([StreamModeEnum, z.array(StreamModeEnum)]).nullish(),
    stream_subgraphs: z.boolean().nullish(),
    stream_resumable: z.boolean().nullish(),
    interrupt_before: NodeList.nullish(),
    interrupt_after: NodeList.nullish(),
    multitask_strategy: z.enum(["reject", "rollback", "interrupt", "enqueue"]).nullish(),
    if_not_exists: z.enum(["create", "reject"]).nullish(),
    after_seconds: z.number().min(0).max(MAX_AFTER_SECONDS).nullish(),
    on_completion: z.enum(["delete", "keep"]).nullish(),
    on_disconnect: z.enum(["cancel", "continue"]).nullish(),
    webhook: WebhookUrl.nullish(),
    checkpoint: CheckpointRef.nullish(),
    checkpoint_id: z.string().nullish(),
    strict_resume: z
      .boolean()
      .nullish()
      .describe("Refuse a resume naming an interrupt that is not pending: the run fails with UnknownInterruptError."),
    // Accepted as the official server does; neither changes what the run does here.
    feedback_keys: z.union([z.string(), z.array(z.string())]).nullish(),
    langsmith_tracer: z.object({ project_name: z.string().nullish(), example_id: z.string().nullish() }).nullish(),
  })
  .openapi("RunCreate");

export type RunCreateBody = z.infer<typeof RunCreate>;

/**
 * The SDK's `createBatch` sends each payload as given, camelCase keys and all (only `assistantId` is
 * renamed), so a batch item's camelCase keys are read as their snake_case fields when those are absent.
 */
const CAMEL_FIELDS: Record<string, string> = {
  assistantId: "assistant_id",
  streamMode: "stream_mode",
  streamSubgraphs: "stream_subgraphs",
  streamResumable: "stream_resumable",
  interruptBefore: "interrupt_before",
  interruptAfter: "interrupt_after",
  multitaskStrategy: "multitask_strategy",
  ifNotExists: "if_not_exists",
  afterSeconds: "after_seconds",
  onCompletion: "on_completion",
  onDisconnect: "on_disconnect",
  checkpointId: "checkpoint_id",
  feedbackKeys: "feedback_keys",
  strictResume: "strict_resume",
};

function snakeCaseItem(item: unknown): unknown {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  const out: Record<string, unknown> = { ...(item as Record<string, unknown>) };
  for (const [camel, snake] of Object.entries(CAMEL_FIELDS)) {
    if (camel in out) {
      if (out[snake] === undefined) out[snake] = out[camel];
      delete out[camel];
    }
  }
  return out;
}

export const RunBatchCreate = z
  .preprocess((items) => (Array.isArray(items) ? items.map(snakeCaseItem) : items), z.array(RunCreate).min(1))
  .openapi("RunBatchCreate");

export const RunStatus = z.enum(["pending", "running", "error", "success", "timeout", "interrupted"]);

export const Run = z
  .object({
    run_id: z.string(),
    thread_id: z.string(),
    assistant_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    status: RunStatus,
    metadata: Metadata,
    kwargs: z.record(z.string(), z.unknown()),
    multitask_strategy: z.enum(["reject", "rollback", "interrupt", "enqueue"]),
    cancel_reason: z
      .string()
      .nullable()
      .optional()
      .describe("Why the run was cancelled (`<cause>:<detail>`, e.g. `taken:client`, `interrupt:<run id>`); null when it was not."),
  })
  .openapi("Run");

/** The fields of a run a `select` may name (`RunSelectField` of the SDK). */
export const RUN_FIELDS = [
  "run_id",
  "thread_id",
  "assistant_id",
  "created_at",
  "updated_at",
  "status",
  "metadata",
  "kwargs",
  "multitask_strategy",
  "cancel_reason",
] as const;

export const RunsCancel = z
  .object({
    thread_id: z.guid().nullish(),
    run_ids: z.array(z.guid()).min(1).nullish(),
    status: z.enum(["pending", "running", "all"]).nullish(),
  })
  .refine((body) => (body.status != null) !== (body.run_ids != null), {
    message: "give either status, or thread_id with run_ids",
    path: ["status"],
  })
  .refine((body) => body.run_ids == null || body.thread_id != null, {
    message: "thread_id is required with run_ids",
    path: ["thread_id"],
  })
  .openapi("RunsCancel");

/** A query flag as the SDK sends it ("1"/"0") or as people type it ("true"/"false"). */
export const QueryFlag = z
  .enum(["1", "0", "true", "false", "yes", "no"])
  .optional()
  .transform((raw) => raw === "1" || raw === "true" || raw === "yes");

export const CancelAction = z.enum(["interrupt", "rollback"]);

const pathId = (name: string, description: string) => z.guid().openapi({ param: { name, in: "path" }, description });

export const ThreadIdParam = z.object({ thread_id: pathId("thread_id", "The thread.") });
export const RunIdParam = z.object({ run_id: pathId("run_id", "The run.") });
export const ThreadRunParams = z.object({
  thread_id: pathId("thread_id", "The thread."),
  run_id: pathId("run_id", "The run."),
});

/**
 * `namespace` (repeated; the SDK's `streamNamespaces`): only events of these namespaces, `""` the root
 * graph (engine stream-namespaces.ts). `stream_end`: close the stream with an `end` event (default: the
 * server's setting, off unless configured).
 */
const StreamOutputQuery = {
  namespace: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: 'Only events of these namespaces ("" is the root graph), without the subgraphs they start.' }),
  stream_end: z
    .enum(["1", "0", "true", "false", "yes", "no"])
    .optional()
    .transform((raw) => (raw === undefined ? undefined : raw === "1" || raw === "true" || raw === "yes"))
    .openapi({ type: "string", description: "End the stream with an `end` event ({run_id, status})." }),
};

/** Query of a run created and streamed (POST .../runs/stream). */
export const RunStreamQuery = z.object(StreamOutputQuery);

/**
 * Query of a stream join (GET .../stream). `stream_mode` narrows the events to some of the run's modes;
 * `checkpoint_id` (with `Last-Event-ID: -1`) replays only the run's events after that checkpoint.
 */
export const JoinStreamQuery = z.object({
  cancel_on_disconnect: QueryFlag,
  stream_mode: z.union([StreamModeEnum, z.array(StreamModeEnum)]).optional(),
  checkpoint_id: z.string().optional().openapi({ description: "The checkpoint the client shows: replay the run's events after it." }),
  ...StreamOutputQuery,
});

/** A route's event-stream response (runs answer their events as SSE, see sse.ts). */
export const eventStreamResponse = {
  description: "Server-sent events: `event: <mode>` and `data: <json>` (and `id:` for resumable runs)",
  content: { "text/event-stream": { schema: z.string() } },
};
