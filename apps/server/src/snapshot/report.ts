import { ENTRY_TYPES, type EntryType } from "./format.js";

export interface TypeCount {
  imported: number;
  skipped: number;
  /** Why entries were skipped: exists, orphan, existing (result kept), unsupported, no_thread, no_assistant. */
  why: Record<string, number>;
}

export interface ImportReport {
  counts: Record<EntryType, TypeCount>;
  /** Entries of types this server does not know, by type (skipped). */
  unknown: Record<string, number>;
}

export function emptyReport(): ImportReport {
  return {
    counts: Object.fromEntries(ENTRY_TYPES.map((t) => [t, { imported: 0, skipped: 0, why: {} }])) as Record<EntryType, TypeCount>,
    unknown: {},
  };
}

const REASONS: Record<string, string> = {
  exists: "already present",
  existing: "run already has a result (kept)",
  orphan: "no such run",
  unsupported: "not supported by this storage",
  no_thread: "thread missing",
  no_assistant: "assistant missing",
};

/** Human-readable lines: one per entry type, then unknown types. */
export function formatReport(report: ImportReport): string[] {
  const lines = ENTRY_TYPES.map((type) => {
    const { imported, skipped, why } = report.counts[type];
    const reasons = Object.entries(why).map(([key, n]) => `${n} ${REASONS[key] ?? key}`);
    return `  ${type.padEnd(12)} ${imported} imported, ${skipped} skipped${reasons.length ? ` (${reasons.join(", ")})` : ""}`;
  });
  const unknown = Object.entries(report.unknown);
  if (unknown.length > 0) {
    const total = unknown.reduce((sum, [, n]) => sum + n, 0);
    lines.push(`  unknown      ${total} skipped (${unknown.map(([type, n]) => `${n} ${type}`).join(", ")})`);
  }
  return lines;
}

export function formatExportCounts(counts: Record<EntryType, number>): string[] {
  return ENTRY_TYPES.map((type) => `  ${type.padEnd(12)} ${counts[type]}`);
}
