import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { tracer } from "./tracer.js";

export type DbSystem = "postgresql" | "sqlite";

/**
 * A statement's span name and attributes, by its text: computed once per distinct statement (the drivers'
 * statements are a fixed, parameterized set), so a traced statement costs a map lookup, not two regexes.
 * The text itself is not exported: the name says the operation and table, and a trace of one SendMessage
 * holds dozens of statements, whose text would multiply what every export carries.
 */
const described = new Map<string, { name: string; attributes: Attributes }>();
/** Dynamic statements (searches with optional filters) have a few shapes each; past this, stop remembering. */
const DESCRIBED_MAX = 2000;

function describe(system: DbSystem, sql: string): { name: string; attributes: Attributes } {
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
  const parent = context.active();
  const span = trace.getSpan(parent);
  if (span === undefined || (!span.isRecording() && !span.spanContext().isRemote)) return undefined;
  const { name, attributes } = describe(system, sql);
  return tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
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
