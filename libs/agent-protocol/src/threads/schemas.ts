import { z } from "@hono/zod-openapi";
import { ThreadTtlBody } from "../http/ttl-schemas.js";

/**
 * Request and response shapes of the /threads API, as `@langchain/langgraph-sdk` 1.15 sends and reads
 * them. Ids are checked as 8-4-4-4-12 hex (`z.guid()`), like the official server's zod v3 `uuid()`:
 * LangGraph's checkpoint ids are uuid6 values whose variant bits a strict RFC check rejects.
 */
export const ThreadId = z.guid().openapi({ description: "The ID of the thread." });
export const CheckpointId = z.guid().openapi({ description: "A checkpoint ID." });

export const ThreadStatus = z.enum(["idle", "busy", "interrupted", "error"]).openapi("ThreadStatus");
const Metadata = z.record(z.string(), z.unknown());

export const ThreadParams = z.object({ thread_id: ThreadId });
export const CheckpointParams = z.object({ thread_id: ThreadId, checkpoint_id: CheckpointId });

export const Thread = z
  .object({
    thread_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    metadata: Metadata,
    config: Metadata,
    status: ThreadStatus,
    values: Metadata.nullable(),
    interrupts: z.record(z.string(), z.array(z.unknown())),
    error: z.unknown().optional(),
  })
  .openapi("Thread");

export const Checkpoint = z
  .object({
    thread_id: z.string(),
    checkpoint_ns: z.string(),
    checkpoint_id: z.string().nullable(),
    checkpoint_map: Metadata.nullable(),
  })
  .openapi("Checkpoint");

/** A subgraph task's namespace: the id and map appear once LangGraph has them (the official server's shape). */
export const TaskCheckpoint = z
  .object({
    thread_id: z.string(),
    checkpoint_ns: z.string(),
    checkpoint_id: z.string().optional(),
    checkpoint_map: Metadata.optional(),
  })
  .openapi("TaskCheckpoint");

/** Which checkpoint a request means (thread id comes from the path). */
export const CheckpointSelector = z
  .object({
    checkpoint_id: CheckpointId.optional(),
    checkpoint_ns: z.string().nullish(),
    checkpoint_map: Metadata.nullish(),
  })
  .openapi("CheckpointSelector");

export const ThreadState = z
  .object({
    values: z.unknown(),
    next: z.array(z.string()),
    checkpoint: Checkpoint.nullable(),
    metadata: Metadata.nullable(),
    created_at: z.string().nullable(),
    parent_checkpoint: Checkpoint.nullable(),
    tasks: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        error: z.string().nullable(),
        interrupts: z.array(z.unknown()),
        checkpoint: TaskCheckpoint.nullable(),
        state: z.unknown().openapi({
          description: "The subgraph's ThreadState without the root's `interrupts` list (with subgraphs=true), else null.",
        }),
        result: z.unknown(),
      }),
    ),
    interrupts: z.array(z.unknown()),
  })
  .openapi("ThreadState");

const Command = z.object({
  goto: z
    .union([
      z.string(),
      z.object({ node: z.string(), input: z.unknown().optional() }),
      z.array(z.union([z.string(), z.object({ node: z.string(), input: z.unknown().optional() })])),
    ])
    .nullish(),
  update: z.union([z.record(z.string(), z.unknown()), z.array(z.tuple([z.string(), z.unknown()]))]).nullish(),
  resume: z.unknown().optional(),
});

export const Superstep = z.object({
  updates: z.array(z.object({ values: z.unknown().optional(), command: Command.nullish(), as_node: z.string() })).min(1),
});

export const ThreadCreate = z
  .object({
    thread_id: ThreadId.optional(),
    metadata: Metadata.optional(),
    if_exists: z.enum(["raise", "do_nothing"]).optional(),
    supersteps: z.array(Superstep).optional().openapi({ description: "State updates applied to the new thread, in order." }),
    ttl: ThreadTtlBody.nullish(),
  })
  .openapi("ThreadCreate");

export const ThreadPatch = z.object({ metadata: Metadata.optional(), ttl: ThreadTtlBody.nullish() }).openapi("ThreadPatch");

/** `select` names the SDK allows; `state_updated_at` is served from `updated_at` (no separate clock here). */
export const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "status",
  "values",
  "interrupts",
  "error",
] as const;

export const ThreadSearch = z
  .object({
    ids: z.array(ThreadId).optional(),
    metadata: Metadata.optional(),
    values: Metadata.optional(),
    status: ThreadStatus.optional(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).optional(),
    sort_order: z.enum(["asc", "desc"]).optional(),
    select: z.array(z.enum(THREAD_FIELDS)).optional(),
  })
  .openapi("ThreadSearchRequest");

export const ThreadCount = z
  .object({ metadata: Metadata.optional(), values: Metadata.optional(), status: ThreadStatus.optional() })
  .openapi("ThreadCountRequest");

export const ThreadPrune = z
  .object({
    thread_ids: z.array(ThreadId).max(1000),
    strategy: z.enum(["delete", "keep_latest"]).default("delete"),
  })
  .openapi("ThreadPruneRequest");

/** `values`, `values.<key>`, or any top-level ThreadState field. */
const StateField = z
  .string()
  .regex(/^(values|next|tasks|checkpoint|metadata|created_at|parent_checkpoint|interrupts|values\..+)$/, "unknown ThreadState field");

const truthy = new Set(["true", "1", "yes"]);
const QueryBoolean = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => truthy.has(v));

export const StateQuery = z.object({
  subgraphs: QueryBoolean.optional(),
  select: z.union([StateField, z.array(StateField)]).optional(),
});

export const StateAtCheckpoint = z
  .object({
    checkpoint: CheckpointSelector,
    subgraphs: z.boolean().optional(),
    select: z.array(StateField).optional(),
  })
  .openapi("ThreadStateCheckpointRequest");

export const StateUpdate = z
  .object({
    values: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]).nullish(),
    as_node: z.string().optional(),
    checkpoint_id: CheckpointId.optional(),
    checkpoint: CheckpointSelector.nullish(),
  })
  .openapi("ThreadStateUpdate");

/** `before` is a checkpoint id, or the SDK's `Config` whose `configurable.checkpoint_id` names one. */
const Before = z.union([CheckpointId, z.object({ configurable: z.object({ checkpoint_id: CheckpointId }).loose() }).loose()]);

export const HistoryBody = z
  .object({
    limit: z.number().int().min(1).max(1000).default(10),
    before: Before.optional(),
    metadata: Metadata.optional(),
    checkpoint: CheckpointSelector.optional(),
    select: z.array(StateField).optional(),
  })
  .openapi("ThreadHistoryRequest");

export const HistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  before: CheckpointId.optional(),
  select: z.union([StateField, z.array(StateField)]).optional(),
});

export const errorResponses = {
  404: { description: "Thread (or checkpoint) not found" },
  409: { description: "Conflict (thread exists, or is busy)" },
  422: { description: "Invalid request" },
} as const;
