import SuperJSON, { type SuperJSONResult } from "superjson";

/**
 * The superjson dialect of `@langchain/langgraph-api`'s `.langgraph_api` files (src/storage/persist.mts):
 * superjson 2.x plus one custom transformer, Uint8Array <-> base64. Our own instance, so the registration
 * stays out of superjson's global default.
 */
export const devSuperJson = new SuperJSON();
devSuperJson.registerCustom<Uint8Array, string>(
  {
    isApplicable: (value): value is Uint8Array => value instanceof Uint8Array,
    serialize: (value) => Buffer.from(value).toString("base64"),
    deserialize: (value) => new Uint8Array(Buffer.from(value, "base64")),
  },
  "Uint8Array",
);

export function isSuperJsonPayload(value: unknown): value is SuperJSONResult {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "json" in value;
}

/** The value a `{ json, meta }` payload stands for (Dates, Maps, undefined, Uint8Arrays restored). */
export function fromSuperJson(payload: SuperJSONResult): unknown {
  return devSuperJson.deserialize(payload);
}
