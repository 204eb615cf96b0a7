/**
 * Whether `error` is LangGraph's `UnknownInterruptError` (a strict resume naming an interrupt that is not
 * pending). Read by name, as LangGraph's own `isUnknownInterruptError` does: that export exists from
 * LangGraph 1.7 on, and the installed server runs on the project's LangGraph, which may be older (where
 * strict resumes are then not refused, and this is never true).
 */
export function isUnknownInterruptError(error: unknown): error is UnknownInterrupt {
  return (error as { name?: unknown } | null | undefined)?.name === "UnknownInterruptError";
}

/** The fields of LangGraph's `UnknownInterruptError` the server reports. */
export interface UnknownInterrupt extends Error {
  reason: string;
  interruptIds: readonly string[];
  pendingIds: readonly string[];
}
