import { z } from "@hono/zod-openapi";
import { AssistantConfig } from "../assistants/schemas.js";
import { text } from "../http/route-helpers.js";
import { WebhookUrl } from "../runs/schemas.js";

/**
 * Shapes of /runs/crons, as `@langchain/langgraph-sdk` 1.15's CronsClient sends them and its `Cron`
 * type reads them. Optional fields are nullish: clients send null for "not given".
 */

const STREAM_MODES = ["values", "messages", "messages-tuple", "updates", "events", "debug", "custom", "tasks", "checkpoints"] as const;
const Metadata = z.record(z.string(), z.unknown());
const NodeList = z.union([z.literal("*"), z.array(z.string())]);

/** Fields of the run each tick creates; stored in the cron's `payload`. */
const runFields = {
  input: z.unknown().optional(),
  config: AssistantConfig.nullish(),
  context: z.unknown().optional(),
  metadata: Metadata.nullish(),
  interrupt_before: NodeList.nullish(),
  interrupt_after: NodeList.nullish(),
  webhook: WebhookUrl.nullish(),
  stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  durability: z.enum(["sync", "async", "exit"]).nullish(),
};

export const RUN_PAYLOAD_FIELDS = [...Object.keys(runFields), "multitask_strategy", "checkpoint_during"] as const;

const scheduleFields = {
  timezone: z.string().nullish().describe("Schedules are evaluated in UTC; only UTC (or omitted) is accepted."),
  end_time: z.iso.datetime({ offset: true }).nullish().describe("No tick after this time (ISO 8601)."),
  on_run_completed: z.enum(["delete", "keep"]).nullish().describe("Stateless crons: delete (default) or keep each tick's thread."),
  enabled: z.boolean().nullish(),
};

export const CronCreate = z
  .object({
    assistant_id: text().min(1).describe("Assistant id or graph name."),
    schedule: text().min(1).describe("5-field cron expression, evaluated in UTC."),
    ...runFields,
    multitask_strategy: z.enum(["reject", "rollback", "interrupt", "enqueue"]).nullish(),
    checkpoint_during: z.boolean().nullish(),
    ...scheduleFields,
  })
  .openapi("CronCreate");

export const CronPatch = z.object({ schedule: text().min(1).nullish(), ...runFields, ...scheduleFields }).openapi("CronPatch");

export const CRON_FIELDS = [
  "cron_id",
  "assistant_id",
  "thread_id",
  "end_time",
  "schedule",
  "created_at",
  "updated_at",
  "user_id",
  "payload",
  "next_run_date",
  "metadata",
  "timezone",
  "enabled",
  "on_run_completed",
] as const;

export const CronSearch = z
  .object({
    assistant_id: text().nullish(),
    thread_id: text().nullish(),
    enabled: z.boolean().nullish(),
    metadata: Metadata.nullish().describe("Each key must equal the cron's metadata value."),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date", "end_time"]).nullish(),
    sort_order: z.enum(["asc", "desc"]).nullish(),
    // "now" is in the SDK's CronSelectField list; it is accepted and, like the Python server, computed.
    select: z.array(z.enum([...CRON_FIELDS, "now"])).nullish(),
  })
  .openapi("CronSearch");

export const CronCount = z
  .object({ assistant_id: text().nullish(), thread_id: text().nullish(), metadata: Metadata.nullish() })
  .openapi("CronCount");

export const Cron = z
  .object({
    cron_id: z.string(),
    assistant_id: z.string(),
    thread_id: z.string().nullable(),
    schedule: z.string(),
    timezone: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()),
    metadata: Metadata,
    user_id: z.string().nullable(),
    end_time: z.string().nullable(),
    next_run_date: z.string().nullable(),
    on_run_completed: z.enum(["delete", "keep"]),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Cron");

export const CronIdParam = z.object({
  cron_id: text()
    .min(1)
    .openapi({ param: { name: "cron_id", in: "path" } }),
});

export const ThreadIdParam = z.object({
  thread_id: text()
    .min(1)
    .openapi({ param: { name: "thread_id", in: "path" } }),
});
