import { describeStatement, sqliteSpanMinMs, statementParent, statementSpanAfter } from "@agent-server/core";
import type { Db, Stmt } from "./db-types.js";

const EXECUTING_METHODS = ["run", "get", "all"] as const;

/**
 * Tracing on: every statement prepared on this connection from now on makes a client span per execution
 * (`run`, `get`, `all`) inside a trace (a request, a run) that fails or takes at least `sqliteSpanMinMs()`.
 * Applied once, when the connection opens, and only then: with tracing off, statements are
 * better-sqlite3's own, untouched.
 */
export function traceStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => traceStatement(prepare(sql), sql)) as Db["prepare"];
}

function traceStatement(stmt: Stmt, sql: string): Stmt {
  const described = describeStatement("sqlite", sql);
  for (const method of EXECUTING_METHODS) {
    const execute = (stmt[method] as (...args: unknown[]) => unknown).bind(stmt);
    Object.defineProperty(stmt, method, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) => {
        const parent = statementParent();
        if (!parent) return execute(...args);
        const started = performance.now();
        try {
          const out = execute(...args);
          statementSpanAfter(described, parent, started, performance.now(), sqliteSpanMinMs());
          return out;
        } catch (error) {
          statementSpanAfter(described, parent, started, performance.now(), sqliteSpanMinMs(), error);
          throw error;
        }
      },
    });
  }
  return stmt;
}
