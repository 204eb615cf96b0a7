import type { Thread } from "@agent-server/core";
import type { ThreadState } from "@agent-server/engine";

/**
 * `select` support: the response keeps only the named fields. For threads, `state_updated_at` is the
 * row's `updated_at` (the thread row changes whenever its state does). For states, `values.<key>`
 * keeps just that key of `values`; it is a projection of the loaded state, not a partial load.
 */
export function selectThreadFields(thread: Thread, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields || fields.length === 0) return thread as unknown as Record<string, unknown>;
  const source = { ...thread, state_updated_at: thread.updated_at } as Record<string, unknown>;
  return Object.fromEntries(fields.filter((f) => f in source).map((f) => [f, source[f]]));
}

export function selectStateFields(state: ThreadState, fields: string | readonly string[] | undefined): Record<string, unknown> {
  const list = fields === undefined ? [] : typeof fields === "string" ? [fields] : fields;
  if (list.length === 0) return state as unknown as Record<string, unknown>;
  const source = state as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const wholeValues = list.includes("values");
  for (const field of list) {
    if (field.startsWith("values.")) {
      if (wholeValues) continue;
      const key = field.slice("values.".length);
      const values = state.values as Record<string, unknown> | null;
      const picked = (out.values ??= {}) as Record<string, unknown>;
      if (values && typeof values === "object" && key in values) picked[key] = values[key];
    } else {
      out[field] = source[field];
    }
  }
  return out;
}
