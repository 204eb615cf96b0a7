import { toWireJson } from "@agent-server/core";

/**
 * Stream payloads are best-effort JSON: a chunk with something JSON cannot carry (a callback in an
 * `events` payload, say) must not kill the run, so such members degrade the way JSON.stringify would.
 */
export function toStreamJson(data: unknown): unknown {
  try {
    return toWireJson(data);
  } catch {
    return JSON.parse(
      JSON.stringify(data, (_key, value) => {
        if (typeof value === "bigint") return value.toString();
        if (value && typeof value === "object" && typeof value.toDict === "function") {
          const { type, data: body } = value.toDict();
          return { ...body, type };
        }
        return value;
      }) ?? "null",
    );
  }
}
