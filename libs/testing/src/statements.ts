import { AsyncLocalStorage } from "node:async_hooks";
import type { Storage } from "@agent-server/core";
import pg from "pg";

/** What one counted call sent to the database: statement texts in order, and (SQLite) statements prepared. */
export interface StatementLog {
  statements: string[];
  prepares: string[];
}

/**
 * Counts the statements a SQL driver's database client sends on behalf of one call, for the query
 * budget tests.
 *
 * Attribution is by async context, not by time window: background loops (the claim poll, the reaper's
 * 3 s owner check, the outbox, event expiry) run on timers created at engine start, outside any call's
 * context, and would otherwise land in a window at random. `around` runs each HTTP request the server
 * receives while a window is open in that window's context; everything the request causes inherits it —
 * the run's claim (the admission's wake-up starts the pump), its execution, settlement and the claim
 * that finds nothing after it, the PostgreSQL NOTIFY flush — so the count is what the call costs, and
 * the same on every run.
 *
 * Counted where the driver meets its database: pg `Client.query` (pool clients, the LISTEN connection,
 * the checkpointer's), better-sqlite3 statement executions (`run/get/all/iterate`, which include the
 * BEGIN/COMMIT of `db.transaction`) and `exec`; SQLite `prepare` calls are logged apart.
 */
export class StatementCounter {
  private readonly context = new AsyncLocalStorage<StatementLog>();
  private open: StatementLog | undefined;
  private readonly restore: Array<() => void> = [];

  constructor(storage: Storage) {
    const record = (sql: unknown) => this.context.getStore()?.statements.push(oneLine(sql));
    if (storage.kind === "postgres") {
      const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
      this.patch(
        proto,
        "query",
        (original) =>
          function (this: unknown, ...args: unknown[]) {
            const first = args[0] as string | { text?: string } | undefined;
            record(typeof first === "string" ? first : first?.text);
            return original.apply(this, args);
          },
      );
    } else if (storage.kind === "sqlite") {
      const db = (storage as unknown as { db: SqliteDb }).db;
      const stmtProto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, (...args: unknown[]) => unknown>;
      for (const method of ["run", "get", "all", "iterate"]) {
        this.patch(
          stmtProto,
          method,
          (original) =>
            function (this: { source: string }, ...args: unknown[]) {
              record(this.source);
              return original.apply(this, args);
            },
        );
      }
      const dbProto = Object.getPrototypeOf(db) as Record<string, (...args: unknown[]) => unknown>;
      this.patch(
        dbProto,
        "exec",
        (original) =>
          function (this: unknown, ...args: unknown[]) {
            record(args[0]);
            return original.apply(this, args);
          },
      );
      this.patch(dbProto, "prepare", (original) => {
        const context = this.context;
        return function (this: unknown, ...args: unknown[]) {
          context.getStore()?.prepares.push(oneLine(args[0]));
          return original.apply(this, args);
        };
      });
    } else {
      throw new Error(`no statement counter for the ${storage.kind} driver`);
    }
  }

  /** For `startTestServer`'s `around`: a request received while a window is open belongs to it. */
  readonly around = <T>(handle: () => T): T => (this.open ? this.context.run(this.open, handle) : handle());

  /**
   * Runs `call` in a window of its own and returns what it sent, once its after-effects have stopped
   * (settlement may go on after the response: the lease release, the claim that finds nothing) — the
   * window closes after `quietMs` without a statement of its own.
   */
  async count(call: () => Promise<unknown>, quietMs = 250): Promise<StatementLog> {
    const log: StatementLog = { statements: [], prepares: [] };
    this.open = log;
    try {
      await this.context.run(log, call);
    } finally {
      this.open = undefined;
    }
    let seen = -1;
    while (seen !== log.statements.length) {
      seen = log.statements.length;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
    }
    return log;
  }

  uninstall(): void {
    for (const undo of this.restore.splice(0).reverse()) undo();
  }

  private patch<K extends string>(
    target: Record<K, (...args: unknown[]) => unknown>,
    key: K,
    wrap: (original: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown,
  ): void {
    const original = target[key];
    target[key] = wrap(original);
    this.restore.push(() => {
      target[key] = original;
    });
  }
}

interface SqliteDb {
  prepare(sql: string): object;
}

function oneLine(sql: unknown): string {
  return String(sql ?? "<no text>")
    .replace(/\s+/g, " ")
    .trim();
}
