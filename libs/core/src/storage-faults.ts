import { AgentServerError } from "./errors.js";

/**
 * Infrastructure faults of the storage, told apart from bugs: the database cannot be reached or refused
 * a write for a reason that has nothing to do with the request (disk full, read-only file, I/O error).
 * Every protocol answers them the same way — HTTP 503 (507 for a full disk) with a `detail` naming the
 * cause and a `Retry-After`, A2A's binding error with the same text, gRPC `UNAVAILABLE` — and the engine
 * hands a run that met one back to the queue instead of ending it (docs/reliability.md, "Faults").
 *
 * Recognized structurally (an error's `code`, its `cause` chain), so neither core nor the protocols import
 * a driver: PostgreSQL's SQLSTATE classes, Node's socket and file errors, better-sqlite3's result codes.
 */
export type StorageFaultKind = "unreachable" | "full" | "read-only" | "io";

export interface StorageFault {
  kind: StorageFaultKind;
  /** 503, or 507 Insufficient Storage for a full disk. */
  status: 503 | 507;
  /** What the client is told: which database, what happened, that nothing was completed. */
  detail: string;
  /** The cause alone, as `detail` names it ("SQLite is out of disk space (SQLITE_FULL)"). */
  reason: string;
  /** Seconds a client should wait before trying again (`Retry-After`). */
  retryAfterSeconds: number;
  /** The driver's own code (`57P01`, `ECONNREFUSED`, `SQLITE_FULL`). */
  code: string;
}

/** An error a driver or the engine raises itself for a storage fault (a closed pool during an outage, ...). */
export class StorageUnavailableError extends AgentServerError {
  constructor(
    message: string,
    readonly kind: StorageFaultKind = "unreachable",
    readonly code = "UNAVAILABLE",
  ) {
    super(message);
  }
}

/** The storage fault `error` is (or was caused by), or undefined for anything else. O(depth of its cause chain), at most 8. */
export function storageFault(error: unknown): StorageFault | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    const fault = ownFault(current);
    if (fault) return fault;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      for (const inner of errors.slice(0, 8)) {
        const innerFault = inner instanceof Error ? ownFault(inner) : undefined;
        if (innerFault) return innerFault;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether a run that met `error` should go back to the queue (the database went away) rather than end. */
export function isStorageOutage(error: unknown): boolean {
  return storageFault(error) !== undefined;
}

function ownFault(error: Error): StorageFault | undefined {
  if (error instanceof StorageUnavailableError) return fault(error.kind, "the database", error.code, error.message);
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("SQLITE_")) return sqliteFault(code);
    if (/^[0-9A-Z]{5}$/.test(code) && !code.startsWith("E")) return postgresFault(code);
    const system = SYSTEM_CODES[code];
    if (system) return fault(system.kind, system.network ? "PostgreSQL" : "the database", code, undefined, system.phrase);
  }
  // pg's own errors carry no code: a connection that ended under a query, or a pool that waited too long.
  for (const [pattern, kind] of PG_MESSAGES)
    if (pattern.test(error.message)) return fault(kind, "PostgreSQL", "CONNECTION_LOST", undefined, "connection lost");
  return undefined;
}

/** SQLSTATE classes: 08 connection exception, 57P admin/crash shutdown, 53 insufficient resources, 58 system error, 25006 read-only. */
function postgresFault(code: string): StorageFault | undefined {
  if (code === "53100") return fault("full", "PostgreSQL", code);
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "57P05" || code.startsWith("53"))
    return fault("unreachable", "PostgreSQL", code);
  if (code === "58030") return fault("io", "PostgreSQL", code);
  if (code === "25006") return fault("read-only", "PostgreSQL", code);
  return undefined;
}

/** better-sqlite3 gives the extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_READONLY_DBMOVED`, ...). */
function sqliteFault(code: string): StorageFault | undefined {
  if (code === "SQLITE_FULL") return fault("full", "SQLite", code);
  if (code.startsWith("SQLITE_IOERR")) return fault(code === "SQLITE_IOERR_NOMEM" ? "unreachable" : "io", "SQLite", code);
  if (code.startsWith("SQLITE_READONLY")) return fault("read-only", "SQLite", code);
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_BUSY")) return fault("unreachable", "SQLite", code);
  return undefined;
}

/**
 * Node's socket and file errors. The detail says them in words, not by code: the SDK's retrying caller
 * treats any error text containing `ECONNREFUSED` as its own failed connection and drops the status.
 */
const SYSTEM_CODES: Record<string, { kind: StorageFaultKind; phrase: string; network?: true }> = {
  ECONNREFUSED: { kind: "unreachable", phrase: "connection refused", network: true },
  ECONNRESET: { kind: "unreachable", phrase: "connection reset", network: true },
  ETIMEDOUT: { kind: "unreachable", phrase: "connection timed out", network: true },
  EPIPE: { kind: "unreachable", phrase: "connection closed", network: true },
  ENOTFOUND: { kind: "unreachable", phrase: "host not found", network: true },
  EHOSTUNREACH: { kind: "unreachable", phrase: "host unreachable", network: true },
  ENETUNREACH: { kind: "unreachable", phrase: "network unreachable", network: true },
  EAI_AGAIN: { kind: "unreachable", phrase: "name lookup failed", network: true },
  ENOSPC: { kind: "full", phrase: "no space left on device" },
  EDQUOT: { kind: "full", phrase: "disk quota exceeded" },
  EROFS: { kind: "read-only", phrase: "read-only file system" },
  EIO: { kind: "io", phrase: "input/output error" },
};

const PG_MESSAGES: [RegExp, StorageFaultKind][] = [
  [/^Connection terminated/, "unreachable"],
  [/^timeout exceeded when trying to connect$/, "unreachable"],
  [/^Client has encountered a connection error and is not queryable$/, "unreachable"],
  [/^Client was closed and is not queryable$/, "unreachable"],
  [/^Query read timeout$/, "unreachable"],
];

const WHAT: Record<StorageFaultKind, string> = {
  unreachable: "cannot be reached",
  full: "is out of disk space",
  "read-only": "is read-only",
  io: "failed to read or write its files",
};

function fault(kind: StorageFaultKind, database: string, code: string, message?: string, phrase = code): StorageFault {
  const status = kind === "full" ? 507 : 503;
  const cause = message ?? `${database} ${WHAT[kind]} (${phrase})`;
  return {
    kind,
    status,
    code,
    reason: cause,
    detail: `Storage unavailable: ${cause}; the request was not completed, try again later`,
    retryAfterSeconds: kind === "unreachable" ? 5 : 30,
  };
}
