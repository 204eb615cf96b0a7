import { z } from "@hono/zod-openapi";
import { MAX_INT32, text } from "../http/route-helpers.js";

/**
 * Request and response shapes of /assistants, as `@langchain/langgraph-sdk` 1.15 sends and reads them
 * (client/assistants/index.js). Optional fields are nullish: clients send null for "not given".
 */

export const AssistantConfig = z
  .object({
    tags: z.array(z.string()).optional(),
    recursion_limit: z.number().int().optional(),
    configurable: z.record(z.string(), z.unknown()).optional(),
  })
  .catchall(z.unknown())
  .openapi("AssistantConfig", { description: "RunnableConfig applied to every run of the assistant." });

const Metadata = z.record(z.string(), z.unknown());

export const Assistant = z
  .object({
    assistant_id: z.string(),
    graph_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    config: AssistantConfig,
    context: z.unknown(),
    metadata: Metadata,
    version: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Assistant");

export const AssistantVersion = Assistant.omit({ updated_at: true }).openapi("AssistantVersion");

/** A path segment naming an assistant: its id, or the name of a graph (its system assistant). */
export const AssistantIdParam = z.object({
  assistant_id: text()
    .min(1)
    .openapi({ param: { name: "assistant_id", in: "path" }, description: "Assistant id, or a graph name." }),
});

export const AssistantCreate = z
  .object({
    assistant_id: z.guid().nullish().describe("The id of the assistant; generated when absent."),
    graph_id: text().min(1).describe("A graph of langgraph.json."),
    config: AssistantConfig.nullish(),
    context: z.unknown().optional(),
    metadata: Metadata.nullish(),
    if_exists: z.enum(["raise", "do_nothing"]).nullish(),
    name: text().nullish(),
    description: text().nullish(),
  })
  .openapi("AssistantCreate");

export const AssistantPatch = z
  .object({
    graph_id: text().min(1).nullish(),
    config: AssistantConfig.nullish(),
    context: z.unknown().optional(),
    metadata: Metadata.nullish().describe("Merged into the existing metadata."),
    name: text().nullish(),
    description: text().nullish(),
  })
  .openapi("AssistantPatch");

export const ASSISTANT_FIELDS = [
  "assistant_id",
  "graph_id",
  "name",
  "description",
  "config",
  "context",
  "created_at",
  "updated_at",
  "metadata",
  "version",
] as const;

export const AssistantSearch = z
  .object({
    graph_id: text().nullish(),
    name: text().nullish().describe("Case-sensitive substring of the name."),
    metadata: Metadata.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"]).nullish(),
    sort_order: z.enum(["asc", "desc"]).nullish(),
    select: z.array(z.enum(ASSISTANT_FIELDS)).nullish(),
  })
  .openapi("AssistantSearch");

export const AssistantCount = z
  .object({
    graph_id: text().nullish(),
    name: text().nullish(),
    metadata: Metadata.nullish(),
  })
  .openapi("AssistantCount");

export const AssistantVersionsQuery = z
  .object({
    metadata: Metadata.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
  })
  .openapi("AssistantVersionsSearch");

export const AssistantLatest = z.object({ version: z.number().int().min(1).max(MAX_INT32) }).openapi("AssistantLatestVersion");

export const JsonSchemaOrNull = z.record(z.string(), z.unknown()).nullable();

export const GraphSchemas = z
  .object({
    graph_id: z.string(),
    input_schema: JsonSchemaOrNull,
    output_schema: JsonSchemaOrNull,
    state_schema: JsonSchemaOrNull,
    config_schema: JsonSchemaOrNull,
    context_schema: JsonSchemaOrNull,
  })
  .openapi("GraphSchema");

export const DrawableGraph = z
  .object({
    nodes: z.array(z.record(z.string(), z.unknown())),
    edges: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("AssistantGraph");

/** `?xray=true|false|<depth>`: how deep subgraphs are drawn (the SDK sends a boolean or an integer). */
export const XrayQuery = z.object({
  xray: z
    .string()
    .regex(/^(true|false|yes|no|\d+)$/, "expected true, false or a non-negative integer")
    .optional()
    .transform((raw): boolean | number | undefined => {
      if (raw === undefined) return undefined;
      if (/^\d+$/.test(raw)) return Number(raw);
      return raw === "true" || raw === "yes";
    }),
});

export const RecurseQuery = z.object({
  recurse: z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .optional()
    .transform((raw) => raw === "true" || raw === "1" || raw === "yes"),
});
