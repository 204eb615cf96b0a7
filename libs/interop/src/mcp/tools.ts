import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { matchesAuthFilter, type Assistant, type AssistantSearch, type Metadata, type Storage } from "@agent-server/core";
import type { Engine, JsonSchema } from "@agent-server/engine";
import { refusalText, type McpCaller } from "./caller.js";
import { withMessageLikeDefinitions } from "./message-schema.js";
import { assignToolNames } from "./tool-names.js";

/** What the MCP routes are built over: agent-protocol's `AppDeps`, read structurally. */
export interface McpDeps {
  engine: Engine;
  storage: Storage;
  /** The server's version, reported to clients in `initialize` (`serverInfo.version`). */
  version?: string | undefined;
  /** langgraph.json `http.max_body_size`: the MCP transport reads bodies up to the same size. */
  maxBodyBytes?: number | undefined;
}

/** One assistant a caller may run, under its tool name. */
export interface ToolEntry {
  name: string;
  assistant: Assistant;
}

/** The input schema of a graph whose schema cannot be read: any object (the graph's input), as MCP requires. */
export const PERMISSIVE_INPUT_SCHEMA: Tool["inputSchema"] = Object.freeze({ type: "object", additionalProperties: true });

/** Assistants are read in pages of this size. */
const PAGE = 1000;

/**
 * How long a tool's input schema waits for its graph's source schemas while they are still being
 * extracted (seconds of CPU, begun at server start). MCP clients give up on a slow tools/list: past this
 * the tool gets what the graph reports at run time (for an `Annotation.Root` graph, nothing: the
 * permissive schema), and a later tools/list the schema read from source.
 */
export const SOURCE_SCHEMA_WAIT_MS = 300;

/**
 * The tools a caller sees: one per assistant it may run, named after the assistant (tool-names.ts).
 *
 * Who sees what, as through the HTTP API: the project's `assistants:search` handler scopes the list (its
 * filter is matched against each assistant's metadata; a denial means no tools), and `assistants:read`
 * must allow each one (as reading its schemas would). Only assistants of graphs this server loaded are
 * tools (another could not run). langgraph.json `mcp.assistants` narrows the list to the assistants it
 * names, in its order; otherwise assistants are listed oldest first, so a tool keeps its name when
 * another assistant of the same name is created later.
 */
export class ToolCatalog {
  constructor(
    private readonly deps: McpDeps,
    /** langgraph.json `mcp.assistants`: assistant ids or graph names. */
    private readonly configured: readonly string[] | undefined,
  ) {}

  async entries(caller: McpCaller): Promise<ToolEntry[]> {
    // As POST /assistants/search: the handler may narrow the query in place (graph_id, metadata) or return a filter.
    const query: Record<string, unknown> = { graph_id: undefined, metadata: undefined };
    const filter = await refusedAsNull(() => caller.authorize("assistants", "search", query));
    if (filter === null) return [];
    const visible = await this.searchAll({
      filter,
      graph_id: typeof query.graph_id === "string" ? query.graph_id : undefined,
      metadata: isMetadata(query.metadata) ? query.metadata : undefined,
    });
    const { registry } = this.deps.engine;
    const runnable: Assistant[] = [];
    for (const assistant of this.configured ? this.pick(visible) : visible) {
      if (!registry.has(assistant.graph_id)) continue;
      const readFilter = await refusedAsNull(() => caller.authorize("assistants", "read", { assistant_id: assistant.assistant_id }));
      if (readFilter === null || !matchesAuthFilter(assistant.metadata, readFilter)) continue;
      runnable.push(assistant);
    }
    return assignToolNames(runnable);
  }

  async find(caller: McpCaller, name: string): Promise<ToolEntry | undefined> {
    return (await this.entries(caller)).find((entry) => entry.name === name);
  }

  /** The MCP tool of an entry: its name, the assistant's name as title, a description and the graph's input schema. */
  async describe(entry: ToolEntry): Promise<Tool> {
    const { assistant } = entry;
    return {
      name: entry.name,
      title: assistant.name,
      description: this.description(assistant),
      inputSchema: await this.inputSchema(assistant),
      _meta: { "langgraph/assistant_id": assistant.assistant_id, "langgraph/graph_id": assistant.graph_id },
    };
  }

  /**
   * The graph's input JSON Schema as the registry reads it (what GET /assistants/{id}/schemas answers
   * as `input_schema`, except that source schemas are waited for `SOURCE_SCHEMA_WAIT_MS` only), built
   * with the assistant's config; the permissive object schema when there is none or it does not
   * describe an object.
   */
  async inputSchema(assistant: Assistant): Promise<Tool["inputSchema"]> {
    const { registry } = this.deps.engine;
    try {
      const graph = await registry.get(assistant.graph_id, assistant.config);
      return toolInputSchema((await registry.schemas(assistant.graph_id, graph, { waitForSourceMs: SOURCE_SCHEMA_WAIT_MS })).input);
    } catch {
      // A graph factory that fails, a schema that cannot be built: the tool stays callable.
      return PERMISSIVE_INPUT_SCHEMA;
    }
  }

  /** The assistant's description, else its graph's in langgraph.json, else a sentence naming the graph. */
  private description(assistant: Assistant): string {
    return (
      assistant.description?.trim() ||
      this.deps.engine.registry.description(assistant.graph_id)?.trim() ||
      `Runs the LangGraph graph "${assistant.graph_id}".`
    );
  }

  /** The assistants langgraph.json `mcp.assistants` names, in its order, among those the caller may see. */
  private pick(visible: Assistant[]): Assistant[] {
    const byId = new Map(visible.map((assistant) => [assistant.assistant_id, assistant]));
    const picked = new Map<string, Assistant>();
    for (const ref of this.configured ?? []) {
      const assistant = byId.get(this.deps.engine.registry.resolveAssistantId(ref));
      if (assistant) picked.set(assistant.assistant_id, assistant);
    }
    return [...picked.values()];
  }

  private async searchAll(query: Pick<AssistantSearch, "filter" | "graph_id" | "metadata">): Promise<Assistant[]> {
    const all: Assistant[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.deps.storage.assistants.search({ ...query, limit: PAGE, offset, sort_by: "created_at", sort_order: "asc" });
      all.push(...page);
      if (page.length < PAGE) break;
    }
    // Ties on created_at (system assistants are created in one go) are broken by id, so every listing agrees.
    return all.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.assistant_id.localeCompare(b.assistant_id));
  }
}

/**
 * A graph's input schema as an MCP tool input schema, which must describe an object; LangChain messages
 * in it are described as the message-like objects a client sends (message-schema.ts).
 */
export function toolInputSchema(schema: JsonSchema | null | undefined): Tool["inputSchema"] {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return PERMISSIVE_INPUT_SCHEMA;
  const type = (schema as { type?: unknown }).type;
  const describesObject = type === "object" || (type === undefined && typeof (schema as { properties?: unknown }).properties === "object");
  return describesObject ? ({ ...withMessageLikeDefinitions(schema), type: "object" } as Tool["inputSchema"]) : PERMISSIVE_INPUT_SCHEMA;
}

function isMetadata(value: unknown): value is Metadata {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The handler's answer, or null when it refused (an auth `HTTPException`); other failures propagate. */
async function refusedAsNull<T>(ask: () => Promise<T>): Promise<T | null> {
  try {
    return await ask();
  } catch (error) {
    if (refusalText(error) !== undefined) return null;
    throw error;
  }
}
