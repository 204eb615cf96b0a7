import {
  ASSISTANT_DEPENDENTS,
  ConflictError,
  nowIso,
  stringifyWire,
  type Assistant,
  type AssistantDependent,
  type AssistantPatch,
  type AssistantRepo,
  type AssistantSearch,
  type AssistantVersion,
  type Metadata,
  type NewAssistant,
} from "@agent-server/core";
import { fromRow, intOr, sortDir, Statements, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";

/** Where each of an assistant's dependents (core's assistant cascade) lives; the parameter is its id. */
const DEPENDENT_SQL: Record<AssistantDependent, string[]> = {
  versions: [], // ON DELETE CASCADE from assistants
  crons: ["DELETE FROM crons WHERE assistant_id = ?"],
};

interface AssistantRow {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: string;
  context: string;
  metadata: string;
  version: number;
  created_at: string;
  updated_at: string;
}

type VersionRow = Omit<AssistantRow, "updated_at">;

const COLUMNS = "assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at";
const VERSION_COLUMNS = "assistant_id, version, graph_id, name, description, config, context, metadata, created_at";
const SORT_COLUMNS = new Set(["assistant_id", "graph_id", "name", "created_at", "updated_at"]);

export class SqliteAssistantRepo implements AssistantRepo {
  private readonly s: Statements;
  private readonly byId;
  private readonly insertRow;
  private readonly insertVersion;
  private readonly maxVersion;
  private readonly versionRow;
  private readonly setCurrent;
  /** Both tables' metadata has one aad (sealing.ts): a version's row becomes the current one as stored. */
  private readonly c: TableCodec<"assistants">;

  constructor(
    private readonly db: Db,
    codecs: TableCodecs,
  ) {
    this.c = codecs.assistants;
    this.s = new Statements(db);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM assistants WHERE assistant_id = ?`);
    this.insertRow = db.prepare(
      `INSERT INTO assistants (${COLUMNS}) VALUES (@assistant_id, @graph_id, @name, @description, @config, @context, @metadata, @version, @created_at, @updated_at)`,
    );
    this.insertVersion = db.prepare(
      `INSERT INTO assistant_versions (${VERSION_COLUMNS}) VALUES (@assistant_id, @version, @graph_id, @name, @description, @config, @context, @metadata, @created_at)`,
    );
    this.maxVersion = db.prepare("SELECT MAX(version) AS v FROM assistant_versions WHERE assistant_id = ?");
    this.versionRow = db.prepare(`SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = ? AND version = ?`);
    this.setCurrent = db.prepare(
      `UPDATE assistants SET graph_id = @graph_id, name = @name, description = @description, config = @config,
         context = @context, metadata = @metadata, version = @version, updated_at = @updated_at
       WHERE assistant_id = @assistant_id`,
    );
  }

  async create(input: NewAssistant, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Assistant> {
    const now = input.created_at ?? nowIso();
    const row: AssistantRow = {
      assistant_id: input.assistant_id,
      graph_id: input.graph_id,
      name: input.name ?? "Untitled",
      description: input.description ?? null,
      config: stringifyWire(input.config ?? {}),
      context: stringifyWire(input.context === undefined ? null : input.context),
      metadata: this.c.text("metadata", input.metadata ?? {}),
      version: 1,
      created_at: now,
      updated_at: now,
    };
    const tx = this.db.transaction(() => {
      const existing = this.byId.get(input.assistant_id) as AssistantRow | undefined;
      if (existing) {
        if (options?.ifExists === "do_nothing") return existing;
        throw new ConflictError(`assistant ${input.assistant_id} already exists`);
      }
      this.insertRow.run(row);
      this.insertVersion.run(versionOf(row));
      return row;
    });
    return this.toAssistant(tx.immediate());
  }

  private toAssistant(row: AssistantRow): Assistant {
    return fromRow(row, ASSISTANT_JSON, this.c);
  }

  private toVersion(row: VersionRow): AssistantVersion {
    return fromRow(row, ASSISTANT_JSON, this.c);
  }

  async get(assistantId: string): Promise<Assistant | null> {
    const row = this.byId.get(assistantId) as AssistantRow | undefined;
    return row ? this.toAssistant(row) : null;
  }

  async update(assistantId: string, patch: AssistantPatch): Promise<Assistant | null> {
    const tx = this.db.transaction(() => {
      const current = this.byId.get(assistantId) as AssistantRow | undefined;
      if (!current) return null;
      const max = (this.maxVersion.get(assistantId) as { v: number | null }).v ?? current.version;
      const now = nowIso();
      const next: AssistantRow = {
        ...current,
        graph_id: patch.graph_id ?? current.graph_id,
        name: patch.name ?? current.name,
        description: patch.description !== undefined ? patch.description : current.description,
        config: patch.config !== undefined ? stringifyWire(patch.config) : current.config,
        context: patch.context !== undefined ? stringifyWire(patch.context) : current.context,
        metadata:
          patch.metadata !== undefined
            ? this.c.text("metadata", { ...this.c.value("metadata", current.metadata, {}), ...patch.metadata })
            : current.metadata,
        version: max + 1,
        updated_at: now,
      };
      this.insertVersion.run({ ...versionOf(next), created_at: now });
      this.setCurrent.run(next);
      return next;
    });
    const row = tx.immediate();
    return row ? this.toAssistant(row) : null;
  }

  async delete(assistantId: string): Promise<boolean> {
    const tx = this.db.transaction(() => {
      for (const sql of ASSISTANT_DEPENDENTS.flatMap((dependent) => DEPENDENT_SQL[dependent])) this.s.get(sql).run(assistantId);
      return this.s.get("DELETE FROM assistants WHERE assistant_id = ?").run(assistantId).changes > 0;
    });
    return tx.immediate();
  }

  async search(query: AssistantSearch): Promise<Assistant[]> {
    const { where, params } = buildWhere(query);
    const column = query.sort_by && SORT_COLUMNS.has(query.sort_by) ? query.sort_by : "created_at";
    const dir = sortDir(query.sort_order);
    const sql = `SELECT ${COLUMNS} FROM assistants ${where} ORDER BY ${column} ${dir}, seq ${dir} LIMIT ? OFFSET ?`;
    const rows = this.s.get(sql).all(...params, intOr(query.limit, 10), intOr(query.offset, 0)) as AssistantRow[];
    return rows.map((row) => this.toAssistant(row));
  }

  async count(query: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    const { where, params } = buildWhere(query);
    return (this.s.get(`SELECT COUNT(*) AS n FROM assistants ${where}`).get(...params) as { n: number }).n;
  }

  async listVersions(assistantId: string, query?: { metadata?: Metadata; limit?: number; offset?: number }): Promise<AssistantVersion[]> {
    const meta = query?.metadata !== undefined;
    const sql = `SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = ?
      ${meta ? "AND as_json_contains(metadata, ?, 'assistants.metadata')" : ""} ORDER BY version DESC LIMIT ? OFFSET ?`;
    const params: unknown[] = [assistantId];
    if (meta) params.push(stringifyWire(query!.metadata));
    params.push(intOr(query?.limit, 10), intOr(query?.offset, 0));
    return (this.s.get(sql).all(...params) as VersionRow[]).map((row) => this.toVersion(row));
  }

  async setLatest(assistantId: string, version: number): Promise<Assistant | null> {
    const tx = this.db.transaction(() => {
      const current = this.byId.get(assistantId) as AssistantRow | undefined;
      if (!current) return null;
      const v = this.versionRow.get(assistantId, version) as VersionRow | undefined;
      if (!v) return null;
      const next: AssistantRow = { ...v, created_at: current.created_at, updated_at: nowIso() };
      this.setCurrent.run(next);
      return next;
    });
    const row = tx.immediate();
    return row ? this.toAssistant(row) : null;
  }
}

/**
 * graph_id uses its index; `name` is a substring match (instr, case-sensitive); metadata containment and
 * the auth filter call the registered JSON functions, i.e. they scan the rows the other predicates leave.
 */
function buildWhere(query: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">) {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (query.graph_id !== undefined) {
    clauses.push("graph_id = ?");
    params.push(query.graph_id);
  }
  if (query.name !== undefined) {
    clauses.push("instr(lower(name), lower(?)) > 0");
    params.push(query.name);
  }
  if (query.metadata !== undefined) {
    clauses.push("as_json_contains(metadata, ?, 'assistants.metadata')");
    params.push(stringifyWire(query.metadata));
  }
  if (query.filter !== undefined) {
    clauses.push("as_auth_match(metadata, ?, 'assistants.metadata')");
    params.push(stringifyWire(query.filter));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

function versionOf(row: AssistantRow): VersionRow {
  const { updated_at: _ignored, ...rest } = row;
  return rest;
}

const ASSISTANT_JSON = { config: {}, context: null, metadata: {} };
