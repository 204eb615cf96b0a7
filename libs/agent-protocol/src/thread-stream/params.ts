import { z } from "@hono/zod-openapi";
import { isSupportedChannel } from "@langchain/langgraph/stream";
import { text } from "../http/route-helpers.js";
import { ProtocolError } from "./envelopes.js";

/**
 * The params of each command, as the protocol (`@langchain/protocol`) defines them. Unknown fields are
 * allowed (the protocol's types are extensible); the fields it defines must have their types, or the
 * command is refused with `invalid_argument` naming the field.
 */

const record = z.record(z.string(), z.unknown());
const namespace = z.array(text()).max(64);
const multitask = z.enum(["reject", "interrupt", "rollback", "enqueue"]);
const goto = z.union([text(), z.object({ node: text(), input: z.unknown().optional() }).passthrough()]);

export const RunStartParams = z
  .object({
    assistant_id: text().min(1, "run.start requires an assistant_id"),
    input: z.unknown().optional(),
    config: record.optional().nullable(),
    metadata: record.optional().nullable(),
    multitask_strategy: multitask.optional(),
    multitaskStrategy: multitask.optional(),
  })
  .passthrough();

const respondExtras = {
  update: z
    .union([record, z.array(z.tuple([text(), z.unknown()]))])
    .optional()
    .nullable(),
  goto: z
    .union([goto, z.array(goto)])
    .optional()
    .nullable(),
  config: record.optional().nullable(),
  metadata: record.optional().nullable(),
  /** The SDK's `respondInput(..., { strictResume })`: LangGraph checks the ids when the run executes. */
  strict_resume: z.boolean().optional(),
};
const respondEntry = z.object({ namespace: namespace.optional(), interrupt_id: text().min(1), response: z.unknown() }).passthrough();

const InputRespondMany = z.object({ responses: z.array(respondEntry).min(1).max(1000), ...respondExtras }).passthrough();
const InputRespondOne = respondEntry.extend(respondExtras);
export const InputRespondParams = z.union([InputRespondMany, InputRespondOne]);

/** The form `params` is in (a batch when it has `responses`), so a refusal names the field that is wrong. */
export function inputRespondSchema(params: unknown) {
  return params !== null && typeof params === "object" && "responses" in params ? InputRespondMany : InputRespondOne;
}

export const InputInjectParams = z
  .object({
    namespace: namespace.optional(),
    message: z.object({ role: z.enum(["user", "system"]), content: z.string(), name: text().optional() }).passthrough(),
  })
  .passthrough();

export const StateGetParams = z.object({ namespace: namespace.optional(), keys: z.array(text()).max(1000).optional() }).passthrough();

export const ListCheckpointsParams = z
  .object({ namespace: namespace.optional(), limit: z.number().int().min(1).max(1000).optional(), before: text().optional() })
  .passthrough();

export const StateForkParams = z
  .object({ checkpoint_id: text().min(1), input: z.unknown().optional(), config: record.optional().nullable() })
  .passthrough();

export const AgentGetTreeParams = z.object({ run_id: text().optional() }).passthrough();

/** A subscription filter: the channels (base or `custom:<name>`), namespace prefixes, and depth below them. */
export const FilterFields = {
  channels: z
    .array(z.string())
    .min(1, "at least one channel is required")
    .max(64)
    .refine((channels) => channels.every(isSupportedChannel), { message: "unsupported channel" }),
  namespaces: z.array(namespace).max(64).optional(),
  depth: z.number().int().min(0).max(1000).optional(),
};

export const SubscribeParams = z.object(FilterFields).passthrough();
export const UnsubscribeParams = z.object({ subscription_id: text().min(1) }).passthrough();
export const ReconnectParams = z
  .object({ run_id: text().optional(), last_event_id: text().optional(), subscriptions: z.array(text()).max(64).optional() })
  .passthrough();

/** `schema`'s parse of `params`, or an `invalid_argument` naming the first field that is wrong. */
export function parseParams<T extends z.ZodType>(method: string, schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? ` (params.${issue.path.join(".")})` : "";
  throw new ProtocolError("invalid_argument", `${method}: ${issue.message}${where}`);
}
