import { dbSpan, endDbSpan, InvalidInputError, stringifyWire, tracingEnabled } from "@agent-server/core";
import pg from "pg";

/** Anything that runs a query: the pool, or a client checked out for a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

const JSON_OID = 114;
const JSONB_OID = 3802;
const TIMESTAMPTZ_OID = 1184;
const TIMESTAMP_OID = 1114;

/**
 * Per-query type parsers, so the driver never changes pg's global parsers (the pool may be shared with
 * the application and with PostgresSaver, which relies on the defaults):
 * - json/jsonb: NUL-decoded (see `encodeJsonText`) and parsed into a fresh object per read;
 * - timestamptz: ISO-8601 UTC with milliseconds (`Date#toISOString()`), the model's format.
 */
const parseJson = (text: string): unknown => JSON.parse(decodeJsonText(text));
const parseTimestamp = (oid: number) => {
  const parse = pg.types.getTypeParser(oid, "text") as (text: string) => Date;
  return (text: string) => parse(text).toISOString();
};
const parseTimestamptz = parseTimestamp(TIMESTAMPTZ_OID);
const parseTimestampNoZone = parseTimestamp(TIMESTAMP_OID);
// pg asks for every column of every result: the parsers are made once, not per column.
const TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === JSONB_OID || oid === JSON_OID) return parseJson;
    if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
    if (oid === TIMESTAMP_OID) return parseTimestampNoZone;
    return pg.types.getTypeParser(oid, format as "text");
  },
} as pg.CustomTypesConfig;

// Rows default to loosely typed records: each caller maps its columns itself.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function query<R = Record<string, any>>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  const result = await execute(db, { text, values, types: TYPES });
  return result.rows as R[];
}

export async function queryCount(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  const result = await execute(db, { text, values, types: TYPES });
  return result.rowCount ?? 0;
}

/**
 * Where the driver's statements are executed: named (see StatementNames), and with tracing on, each one
 * inside a trace (a request, a run) is a client span of its own.
 */
function execute(db: Queryable, config: pg.QueryConfig): Promise<pg.QueryResult> {
  const named = config.values ? { ...config, name: statementNames.nameOf(config.text) } : config;
  if (!tracingEnabled()) return db.query(named);
  return withStatementSpan(config.text, () => db.query(named));
}

/**
 * Names for the driver's parameterised statements, so that each pool connection parses and plans a
 * statement once and afterwards only binds and executes it: PostgreSQL parses, analyses and plans an
 * unnamed statement on every call, which was ~30 % of the database's CPU per A2A message (6.2 -> 4.3 ms
 * on the bench machine). pg prepares a named statement on a connection the first time it runs there.
 *
 * Bounded: the first `limit` distinct texts get names, later ones (searches with filter shapes not seen
 * before) stay unnamed, so neither this map nor any connection's backend grows without bound. Process-
 * wide, since names are per connection and a pool may be shared. `disable()` (the driver's
 * `preparedStatements: false`) is for poolers that hand one session's statements to another (PgBouncer
 * in transaction mode before 1.21, or without max_prepared_statements).
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private enabled = true;

  constructor(private readonly limit: number) {}

  nameOf(text: string): string | undefined {
    if (!this.enabled) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.limit) {
      name = `agent_server_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }

  disable(): void {
    this.enabled = false;
  }

  get size(): number {
    return this.names.size;
  }
}

export const statementNames = new StatementNames(512);

/** `run` (one statement, `text`) inside its client span, when a trace is active; as it is otherwise. */
async function withStatementSpan(text: string, run: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
  const span = dbSpan("postgresql", text);
  if (!span) return run();
  try {
    const result = await run();
    endDbSpan(span);
    return result;
  } catch (error) {
    endDbSpan(span, error);
    throw error;
  }
}

/** Runs `fn` in one transaction on one client; rolls back on any error. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await execute(client, { text: "BEGIN" });
    const out = await fn(client);
    await execute(client, { text: "COMMIT" });
    return out;
  } catch (error) {
    await execute(client, { text: "ROLLBACK" }).catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

// ---------------------------------------------------------------------------------------------------
// NUL (and lone surrogate) handling. jsonb refuses "\u0000" inside strings and unpaired UTF-16
// surrogates, both of which JSON.stringify emits as \uXXXX escapes. We replace them, reversibly, by
// a private-use escape character (U+E000) followed by a tag:
//   \u0000      -> U+E000 "0"
//   \uD8xx..    -> U+E000 "u" XXXX   (a lone surrogate, as JSON.stringify escapes it)
//   U+E000      -> U+E000 U+E000     (the escape character itself)
// Encoding is per character, so equality and containment of encoded values match the originals'.
// ---------------------------------------------------------------------------------------------------
const ESC = "\uE000";
const NEEDS_ENCODING = /\\u0000|\\ud[89a-f][0-9a-f]{2}|\uE000/i;
const ENCODE = /\\u0000|\\u(d[89a-f][0-9a-f]{2})|\\[\s\S]|\uE000/gi;
const DECODE = /\uE000(?:(0)|u([0-9a-fA-F]{4})|(\uE000))/g;

export function encodeJsonText(json: string): string {
  if (!NEEDS_ENCODING.test(json)) return json;
  return json.replace(ENCODE, (match: string, surrogate?: string) => {
    if (match === "\\u0000") return `${ESC}0`;
    if (surrogate) return `${ESC}u${surrogate}`;
    if (match === ESC) return ESC + ESC;
    return match;
  });
}

export function decodeJsonText(text: string): string {
  if (!text.includes(ESC)) return text;
  return text.replace(DECODE, (_m, nul?: string, surrogate?: string) => {
    if (nul) return "\\u0000";
    if (surrogate) return `\\u${surrogate}`;
    return ESC;
  });
}

/** A value as the jsonb parameter text to store: wire-normalized (`stringifyWire`) and NUL-encoded. */
export function toDbJson(value: unknown): string {
  return encodeJsonText(stringifyWire(value === undefined ? null : value));
}

/**
 * A run result's two columns (migration 0009): `result_text` (json) keeps the text exactly as written, so
 * a result reads back as the document it was first answered as (jsonb reorders object keys); `result`
 * (jsonb) is still written for processes of the previous version during a rolling update.
 * `resultValues(param)`: both values from the one parameter holding the `toDbJson` text.
 * `storedResult(alias)`: the result as read, the jsonb only for rows written without the text.
 */
export const RESULT_COLUMNS = "result, result_text";
export const resultValues = (param: string): string => `${param}::json::jsonb, ${param}::json`;
export const storedResult = (alias?: string): string => {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `COALESCE(${column("result_text")}, ${column("result")}::json)`;
};

/** A plain string (a JSON object key, a text operand compared with `->>`) encoded as it is stored. */
export function encodeString(value: string): string {
  return JSON.parse(encodeJsonText(JSON.stringify(value))) as string;
}

// ---------------------------------------------------------------------------------------------------
// Identifiers
// ---------------------------------------------------------------------------------------------------
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new InvalidInputError(`invalid Postgres schema name: ${JSON.stringify(schema)}`);
  return `"${schema}"`;
}

/** Fully qualified table names in the driver's schema. */
export class Tables {
  readonly assistants: string;
  readonly assistantVersions: string;
  readonly threads: string;
  readonly runs: string;
  readonly runResults: string;
  readonly pushConfigs: string;
  readonly runEvents: string;
  readonly runEventCounters: string;
  readonly storeItems: string;
  readonly storeVectors: string;
  readonly storeIndex: string;
  readonly crons: string;
  readonly deliveries: string;
  readonly checkpoints: string;
  readonly checkpointBlobs: string;
  readonly checkpointWrites: string;
  readonly encryptionKeys: string;

  constructor(readonly schema: string) {
    const s = quoteSchema(schema);
    this.assistants = `${s}.assistants`;
    this.assistantVersions = `${s}.assistant_versions`;
    this.threads = `${s}.threads`;
    this.runs = `${s}.runs`;
    this.runResults = `${s}.run_results`;
    this.pushConfigs = `${s}.push_configs`;
    this.runEvents = `${s}.run_events`;
    this.runEventCounters = `${s}.run_event_counters`;
    this.storeItems = `${s}.store_items`;
    this.storeVectors = `${s}.store_vectors`;
    this.storeIndex = `${s}.store_index`;
    this.crons = `${s}.crons`;
    this.deliveries = `${s}.deliveries`;
    this.checkpoints = `${s}.checkpoints`;
    this.checkpointBlobs = `${s}.checkpoint_blobs`;
    this.checkpointWrites = `${s}.checkpoint_writes`;
    this.encryptionKeys = `${s}.encryption_keys`;
  }
}

/** Collects positional parameters while building a WHERE clause. */
export class Params {
  readonly values: unknown[] = [];
  constructor(initial: unknown[] = []) {
    this.values.push(...initial);
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function pgCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";

export function whereClause(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
}

export function limitOffset(params: Params, limit: number | undefined, offset: number | undefined, defaultLimit: number): string {
  return `LIMIT ${params.add(Math.max(0, Math.floor(limit ?? defaultLimit)))} OFFSET ${params.add(Math.max(0, Math.floor(offset ?? 0)))}`;
}

/**
 * The pool as LangGraph's PostgresSaver (and our checkpoint writes) see it: parameterised statements
 * (`pool.query`, and `query` on the clients `connect` hands out) are named like the driver's own, and with
 * tracing on they become spans. Only what the saver uses is wrapped; the pool and its clients are not
 * changed, so the driver's statements are named and traced once.
 */
export function saverPool(pool: pg.Pool): pg.Pool {
  const run = (db: Queryable, text: string, values?: unknown[]) => {
    const config = values ? { text, values, name: statementNames.nameOf(text) } : { text };
    return tracingEnabled() ? withStatementSpan(text, () => db.query(config)) : db.query(config);
  };
  const facade = {
    query: (text: string, values?: unknown[]) => run(pool, text, values),
    connect: async () => {
      const client = await pool.connect();
      return {
        query: (text: string, values?: unknown[]) => run(client, text, values),
        release: (error?: Error | boolean) => client.release(error),
      };
    },
    end: () => pool.end(),
  };
  return facade as unknown as pg.Pool;
}
