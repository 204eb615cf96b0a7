import { z } from "zod";
import { DEFAULT_INDEX_FIELDS, type StoreIndexSettings } from "@agent-server/core";

/**
 * langgraph.json `store.index`, as the Python LangGraph server reads it: `embed` (`"./file.ts:export"` or
 * `"provider:model"`), `dims` (the embedding's size) and `fields` (JSON paths into values; default `["$"]`).
 */
export const StoreIndexSchema = z.looseObject({
  embed: z.string({ error: 'embed must be "./file.ts:export" or "provider:model"' }).min(1, "embed must not be empty"),
  dims: z.number({ error: "dims must be a number" }).int("dims must be an integer").positive("dims must be at least 1").max(65_536),
  fields: z.array(z.string().min(1, "fields must be non-empty paths")).min(1, "fields must name at least one path").nullish(),
});

export type StoreIndexConfig = z.infer<typeof StoreIndexSchema>;

export function storeIndexSettings(config: StoreIndexConfig): StoreIndexSettings {
  return { embed: config.embed, dims: config.dims, fields: config.fields ?? DEFAULT_INDEX_FIELDS };
}
