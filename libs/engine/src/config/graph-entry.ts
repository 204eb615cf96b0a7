import { z } from "zod";

const SPEC = /^[^:]+(:[A-Za-z_$][\w$]*)?$/;
const SPEC_MESSAGE = "expected './file.ts:exportName'";

/**
 * One entry of langgraph.json `graphs`: `"./file.ts:export"`, or the object form
 * `{ "path": "./file.ts:export", "description": "..." }` whose description becomes the system assistant's
 * (and so its A2A agent card's). Other keys of the object are kept, as elsewhere in the config.
 */
export const GraphEntrySchema = z
  .union([z.string(), z.looseObject({ path: z.string(), description: z.string().optional() })], {
    error: `expected './file.ts:exportName' or { "path": "./file.ts:exportName", "description": "..." }`,
  })
  .superRefine((entry, ctx) => {
    const path = typeof entry === "string" ? entry : entry.path;
    if (!SPEC.test(path)) ctx.addIssue({ code: "custom", message: SPEC_MESSAGE, path: typeof entry === "string" ? [] : ["path"] });
  });

export type GraphEntry = z.infer<typeof GraphEntrySchema>;

/** The module spec and description of an entry, whichever form it has. */
export function readGraphEntry(entry: GraphEntry): { spec: string; description?: string } {
  return typeof entry === "string" ? { spec: entry } : { spec: entry.path, description: entry.description };
}
