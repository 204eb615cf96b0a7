import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { tracer } from "./tracer.js";

export type DbSystem = "postgresql" | "sqlite";

/**
 * A statement's span name and attributes, by its text: computed once per distinct statement (the drivers'
 * statements are a fixed, parameterized set), so a traced statement costs a map lookup, not two regexes.
 * The text itself is not exported: the name says the operation and table, and a trace of one SendMessage
 * holds dozens of statements, whose text would multiply what every export carries.
 */
const described = new Map<string, StatementDescription>();
/** Dynamic statements (searches with optional filters) have a few shapes each; past this, stop remembering. */
const DESCRIBED_MAX = 2000;

/** What a statement's spans are called and carry. */
export interface StatementDescription {
  name: string;
  attributes: Attributes;
}

/** A statement's span name and attributes; a driver that prepares statements keeps it with the statement. */
export function describeStatement(system: DbSystem, sql: string): StatementDescription {
  const key = `${system}:${sql}`;
  let found = described.get(key);
  if (!found) {
    const operation = sqlOperation(sql);
    const table = sqlTable(sql);
    found = {
      name: table ? `${operation} ${table}` : operation,
      attributes: {
        "db.system": system,
        "db.system.name": system,
        "db.operation": operation,
        "db.operation.name": operation,
        ...(table ? { "db.collection.name": table } : {}),
      },
    };
    if (described.size < DESCRIBED_MAX) described.set(key, found);
  }
  return found;
}

/**
 * A client span for one storage statement, or undefined when no span is active (a poll, a lease renewal,
 * the claim loop): statements are traced as part of a request or a run, never as traces of their own.
 * Nor under a local span the sampler left out: its children would be left out too, so the statement
 * skips making one. Callers check `tracingEnabled()` first.
 */
export function dbSpan(system: DbSystem, sql: string): Span | undefined {
  const parent = statementParent();
  if (!parent) return undefined;
  const { name, attributes } = describeStatement(system, sql);
  return tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
}

/**
 * The span of a statement that ran from `startedMs` to `endedMs` (`performance.now()` times) under
 * `parent`: made only when it failed or took at least `minMs`, so a fast statement costs two clock reads.
 */
export function statementSpanAfter(
  statement: StatementDescription,
  parent: Context,
  startedMs: number,
  endedMs: number,
  minMs: number,
  error?: unknown,
): void {
  const durationMs = endedMs - startedMs;
  if (error === undefined && durationMs < minMs) return;
  // On the wall clock, as the SDK times the spans around it (performance.now() drifts from it over days).
  const end = Date.now();
  const span = tracer().startSpan(
    statement.name,
    { kind: SpanKind.CLIENT, attributes: statement.attributes, startTime: end - durationMs },
    parent,
  );
  if (error !== undefined) markStatementFailed(span, error);
  span.end(end);
}

/**
 * The context a statement's span would be a child of: the active one when its span records (or is the
 * caller's, from a `traceparent`), else undefined (see `dbSpan`). A synchronous statement (SQLite) asks
 * before it runs and makes its span after, with `statementSpanAfter`.
 */
export function statementParent(): Context | undefined {
  const parent = context.active();
  const span = trace.getSpan(parent);
  if (span === undefined || (!span.isRecording() && !span.spanContext().isRemote)) return undefined;
  return parent;
}

export function endDbSpan(span: Span, error?: unknown): void {
  if (error !== undefined) markStatementFailed(span, error);
  span.end();
}

function markStatementFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute("error.type", typeof code === "string" ? code : error instanceof Error ? error.name : "error");
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
