import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { tracer } from "./tracer.js";

export type DbSystem = "postgresql" | "sqlite";

/** How much of a statement's text a span keeps (statements are parameterized: no values in the text). */
const QUERY_TEXT_MAX = 1000;

/**
 * A client span for one storage statement, or undefined when no span is active (a poll, a lease renewal,
 * the claim loop): statements are traced as part of a request or a run, never as traces of their own.
 * Callers check `tracingEnabled()` first.
 */
export function dbSpan(system: DbSystem, sql: string): Span | undefined {
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return undefined;
  const operation = sqlOperation(sql);
  const table = sqlTable(sql);
  return tracer().startSpan(
    table ? `${operation} ${table}` : operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "db.system": system,
        "db.system.name": system,
        "db.operation": operation,
        "db.operation.name": operation,
        ...(table ? { "db.collection.name": table } : {}),
        "db.query.text": sql.length > QUERY_TEXT_MAX ? sql.slice(0, QUERY_TEXT_MAX) : sql,
      },
    },
    parent,
  );
}

export function endDbSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    const code = (error as { code?: unknown } | null)?.code;
    span.setAttribute("error.type", typeof code === "string" ? code : error instanceof Error ? error.name : "error");
  }
  span.end();
}

const FIRST_WORD = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/;
const TABLE = /\b(?:FROM|INTO|UPDATE|JOIN)\s+((?:"?[A-Za-z_][\w$]*"?\.)?"?[A-Za-z_][\w$]*"?)/i;

/** The statement's command (SELECT, INSERT, BEGIN, ...), upper-cased. */
export function sqlOperation(sql: string): string {
  return FIRST_WORD.exec(sql)?.[1]?.toUpperCase() ?? "SQL";
}

/** The first table a statement names, without quotes, or undefined. */
function sqlTable(sql: string): string | undefined {
  return TABLE.exec(sql)?.[1]?.replaceAll('"', "");
}
