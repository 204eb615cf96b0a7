import { v5 as uuidv5 } from "uuid";
import { NotFoundError, type Storage } from "@agent-server/core";
import { readGraphEntry, type GraphEntry } from "../config/graph-entry.js";
import { loadGraph, parseGraphSpec, projectScopes, type GraphFactory, type GraphSpec, type ResolvedGraph } from "./load-graph.js";
import { DESCRIBE_GRAPH, serverRuntime, type GraphAccess } from "./server-runtime.js";
import type { SystemAssistantDefaults } from "../config/system-assistant-defaults.js";
import { channelSchemas, runtimeGraphSchemas, type GraphOrigin } from "./schemas/runtime-schemas.js";
import { DEFAULT_STATIC_SCHEMA_OPTIONS, StaticSchemaCache, type StaticSchemaOptions } from "./schemas/static-schema-cache.js";
import type { StaticGraphSchemas, StaticTarget } from "./schemas/static-schemas.js";
import { NO_SCHEMAS, type GraphSchemaSet } from "./schemas/types.js";
import type { CompiledGraph, RunnableConfig } from "./types.js";
import { promptBatchedStores } from "./batched-store.js";

/** The namespace LangGraph servers derive system assistant ids from: uuid5(graph_id, this). */
export const GRAPH_ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export function systemAssistantId(graphId: string): string {
  let id = systemAssistantIds.get(graphId);
  if (id === undefined) systemAssistantIds.set(graphId, (id = uuidv5(graphId, GRAPH_ASSISTANT_NAMESPACE)));
  return id;
}

/** uuid5 hashes on every call, and every request naming an assistant by graph asks; graphs are few. */
const systemAssistantIds = new Map<string, string>();

/** How long a schema request waits for source schemas that are not read yet. */
export interface SchemaWaitOptions {
  /**
   * At most this long (ms); past it the request is answered without them (runtime schemas: null for an
   * `Annotation.Root` graph, channel names for a subgraph) and the extraction goes on for later requests.
   * Absent: until the extraction ends (at most its timeout), as the official server waits.
   */
  waitForSourceMs?: number;
}

/** `promise`'s value if it settles within `ms`, else `otherwise` (an already settled promise always wins). */
function settledWithin<T>(promise: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The graphs of one `langgraph.json`. Every graph is compiled against the driver's checkpointer and
 * store, replacing whatever the module compiled it with, so its state lands in the chosen storage.
 */
export class GraphRegistry {
  private readonly graphs = new Map<string, { spec: GraphSpec; resolved: ResolvedGraph; projectDir?: string; description?: string }>();
  private systemAssistantDefaults: Record<string, SystemAssistantDefaults> = {};
  private readonly staticSchemas: StaticSchemaCache;

  constructor(
    private readonly storage: Pick<Storage, "checkpointer" | "langgraphStore">,
    schemaOptions: Partial<StaticSchemaOptions> = {},
  ) {
    this.staticSchemas = new StaticSchemaCache({ ...DEFAULT_STATIC_SCHEMA_OPTIONS, ...schemaOptions });
    // Every graph gets the store (`get`): LangGraph's wrapper of it must not hold each call's end.
    promptBatchedStores();
  }

  /**
   * Loads every graph of the config (paths relative to `cwd`), in either form of a `graphs` entry; fails
   * on the first that cannot load.
   */
  async load(graphs: Record<string, GraphEntry>, cwd: string): Promise<void> {
    const scopes = projectScopes();
    for (const [graphId, entry] of Object.entries(graphs)) {
      const { spec: raw, description } = readGraphEntry(entry);
      const spec = parseGraphSpec(graphId, raw, cwd);
      this.graphs.set(graphId, { spec, resolved: await loadGraph(spec, scopes), projectDir: cwd, description });
    }
  }

  /** Registers an already-built graph, or a factory of one (tests, embedding). */
  register(graphId: string, graph: CompiledGraph | GraphFactory): void {
    const spec = { graphId, sourceFile: "(in process)", exportName: graphId };
    const resolved: ResolvedGraph = typeof graph === "function" ? { kind: "factory", make: graph } : { kind: "compiled", graph };
    this.graphs.set(graphId, { spec, resolved });
  }

  has(graphId: string): boolean {
    return this.graphs.has(graphId);
  }

  ids(): string[] {
    return [...this.graphs.keys()];
  }

  spec(graphId: string): GraphSpec | undefined {
    return this.graphs.get(graphId)?.spec;
  }

  /** A graph name is accepted wherever an assistant id is. */
  resolveAssistantId(assistantIdOrGraphId: string): string {
    return this.graphs.has(assistantIdOrGraphId) ? systemAssistantId(assistantIdOrGraphId) : assistantIdOrGraphId;
  }

  /**
   * The graph, wired to the driver's checkpointer and store. `checkpointer: false` runs without one
   * (nothing persisted). `access`: what it is loaded for, which a graph factory is told (its
   * `ServerRuntime`); describing the graph when omitted.
   */
  async get(
    graphId: string,
    config: RunnableConfig,
    options: { checkpointer?: boolean; access?: GraphAccess } = {},
  ): Promise<CompiledGraph> {
    const entry = this.graphs.get(graphId);
    if (!entry) throw new NotFoundError(`graph "${graphId}" not found`);
    const graph =
      entry.resolved.kind === "factory"
        ? await entry.resolved.make(config, serverRuntime(options.access ?? DESCRIBE_GRAPH, this.storage.langgraphStore))
        : entry.resolved.graph;
    graph.checkpointer = options.checkpointer === false ? undefined : this.storage.checkpointer;
    graph.store = this.storage.langgraphStore;
    return graph;
  }

  /** The `description` of the graph's langgraph.json entry, if it has one. */
  description(graphId: string): string | undefined {
    return this.graphs.get(graphId)?.description;
  }

  /**
   * JSON schemas of `graph`, built from the graph `graphId`: what LangGraph reports at run time (StateSchema,
   * zod), else the types of the graph's TypeScript source (`Annotation.Root` states), extracted in a worker
   * and cached (`startSchemaExtraction`). Null schemas when neither works (no source, source that cannot
   * be analysed), and, past `waitForSourceMs`, while the extraction is still under way.
   */
  async schemas(graphId: string, graph: CompiledGraph, wait: SchemaWaitOptions = {}): Promise<GraphSchemaSet> {
    const runtime = await runtimeGraphSchemas(graph, this.origin(graphId));
    if (runtime) return runtime;
    return (await this.fromSource(graphId, wait))?.graph ?? NO_SCHEMAS;
  }

  /**
   * Schemas of the subgraph at `namespace` (`a|b`) of the graph `graphId`: what LangGraph reports at run
   * time, else its types in the graph's source (waiting as `schemas` does), else (an `Annotation.Root`
   * state) its channel names.
   */
  async subgraphSchemas(
    graphId: string,
    namespace: string,
    subgraph: CompiledGraph,
    wait: SchemaWaitOptions = {},
  ): Promise<GraphSchemaSet> {
    const runtime = await runtimeGraphSchemas(subgraph, this.origin(graphId));
    if (runtime) return runtime;
    return (await this.fromSource(graphId, wait))?.subgraphs[namespace] ?? channelSchemas(subgraph);
  }

  /**
   * Starts, in the background, reading the source schemas of every loaded graph that may need them (all
   * but graphs compiled at import whose state LangGraph describes at run time): from the cache folder
   * where still valid, the others in one extraction. The engine calls it at start, so the first requests
   * find them ready or under way; graphs loaded later are read on their first request.
   */
  startSchemaExtraction(): void {
    void this.graphsNeedingSource().then(
      (targets) => this.staticSchemas.prefetch(targets),
      // Nothing read ahead: each graph is read on its first request instead.
      () => undefined,
    );
  }

  /** Stops schema extraction in progress (engine shutdown). */
  stopSchemaExtraction(): void {
    this.staticSchemas.stop();
  }

  private origin(graphId: string): GraphOrigin | undefined {
    const entry = this.graphs.get(graphId);
    if (!entry) throw new NotFoundError(`graph "${graphId}" not found`);
    return entry.resolved.scope ? { sourceFile: entry.spec.sourceFile, scope: entry.resolved.scope } : undefined;
  }

  private async graphsNeedingSource(): Promise<{ graphId: string; target: StaticTarget }[]> {
    const needed: { graphId: string; target: StaticTarget }[] = [];
    for (const [graphId, entry] of this.graphs) {
      const target = this.sourceTarget(graphId);
      if (!target) continue;
      if (entry.resolved.kind === "compiled") {
        const runtime = await runtimeGraphSchemas(entry.resolved.graph, this.origin(graphId)).catch(() => undefined);
        if (runtime) continue;
      }
      needed.push({ graphId, target });
    }
    return needed;
  }

  private sourceTarget(graphId: string): StaticTarget | undefined {
    const entry = this.graphs.get(graphId);
    if (!entry || entry.projectDir === undefined) return undefined;
    return { sourceFile: entry.spec.sourceFile, exportName: entry.spec.exportName, projectDir: entry.projectDir };
  }

  private async fromSource(graphId: string, wait: SchemaWaitOptions): Promise<StaticGraphSchemas | null> {
    const target = this.sourceTarget(graphId);
    if (!target) return null;
    const schemas = this.staticSchemas.get(graphId, target);
    return wait.waitForSourceMs === undefined ? schemas : settledWithin(schemas, wait.waitForSourceMs, null);
  }

  /**
   * The config and context each graph's system assistant is created with (`LANGGRAPH_CONFIG`, keyed by
   * graph id). Like the official server, they apply when the assistant is created, not to one that exists.
   */
  setSystemAssistantDefaults(defaults: Record<string, SystemAssistantDefaults>): void {
    this.systemAssistantDefaults = defaults;
  }

  /**
   * One system assistant per graph (created_by: system), created once with its LANGGRAPH_CONFIG defaults;
   * later starts leave it as is, except for a description langgraph.json gives that differs from the
   * stored one: the file is where it is edited, so it is written as a new version of the assistant.
   */
  async ensureSystemAssistants(storage: Pick<Storage, "assistants">): Promise<void> {
    for (const [graphId, { description }] of this.graphs) {
      const defaults = this.systemAssistantDefaults[graphId];
      const assistantId = systemAssistantId(graphId);
      const assistant = await storage.assistants.create(
        {
          assistant_id: assistantId,
          graph_id: graphId,
          name: graphId,
          description: description ?? null,
          metadata: { created_by: "system" },
          config: defaults?.config ?? {},
          ...(defaults?.context !== undefined ? { context: defaults.context } : {}),
        },
        { ifExists: "do_nothing" },
      );
      if (description !== undefined && assistant.description !== description) {
        await storage.assistants.update(assistantId, { description });
      }
    }
  }
}
