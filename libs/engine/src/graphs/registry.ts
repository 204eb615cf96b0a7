import { v5 as uuidv5 } from "uuid";
import { NotFoundError, type Storage } from "@agent-server/core";
import { loadGraph, parseGraphSpec, type GraphSpec, type ResolvedGraph } from "./load-graph.js";
import type { SystemAssistantDefaults } from "../config/system-assistant-defaults.js";
import type { CompiledGraph, RunnableConfig } from "./types.js";

/** The namespace LangGraph servers derive system assistant ids from: uuid5(graph_id, this). */
export const GRAPH_ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export function systemAssistantId(graphId: string): string {
  return uuidv5(graphId, GRAPH_ASSISTANT_NAMESPACE);
}

/**
 * The graphs of one `langgraph.json`. Every graph is compiled against the driver's checkpointer and
 * store, replacing whatever the module compiled it with, so its state lands in the chosen storage.
 */
export class GraphRegistry {
  private readonly graphs = new Map<string, { spec: GraphSpec; resolved: ResolvedGraph }>();
  private systemAssistantDefaults: Record<string, SystemAssistantDefaults> = {};

  constructor(private readonly storage: Pick<Storage, "checkpointer" | "langgraphStore">) {}

  /** Loads every graph of the config (paths relative to `cwd`); fails on the first that cannot load. */
  async load(graphs: Record<string, string>, cwd: string): Promise<void> {
    for (const [graphId, raw] of Object.entries(graphs)) {
      const spec = parseGraphSpec(graphId, raw, cwd);
      this.graphs.set(graphId, { spec, resolved: await loadGraph(spec) });
    }
  }

  /** Registers an already-built graph (tests, embedding). */
  register(graphId: string, graph: CompiledGraph | ((config: RunnableConfig) => Promise<CompiledGraph>)): void {
    const spec = { graphId, sourceFile: "(in process)", exportName: graphId };
    const resolved: ResolvedGraph =
      typeof graph === "function" ? { kind: "factory", make: graph } : { kind: "compiled", graph };
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
   * The graph to execute, wired to the driver's checkpointer and store. `checkpointer: false` runs
   * without one (nothing persisted).
   */
  async get(graphId: string, config: RunnableConfig, options: { checkpointer?: boolean } = {}): Promise<CompiledGraph> {
    const entry = this.graphs.get(graphId);
    if (!entry) throw new NotFoundError(`graph "${graphId}" not found`);
    const graph = entry.resolved.kind === "factory" ? await entry.resolved.make(config) : entry.resolved.graph;
    graph.checkpointer = options.checkpointer === false ? undefined : this.storage.checkpointer;
    graph.store = this.storage.langgraphStore;
    return graph;
  }

  /**
   * The config and context each graph's system assistant is created with (`LANGGRAPH_CONFIG`, keyed by
   * graph id). Like the official server, they apply when the assistant is created, not to one that exists.
   */
  setSystemAssistantDefaults(defaults: Record<string, SystemAssistantDefaults>): void {
    this.systemAssistantDefaults = defaults;
  }

  /** One system assistant per graph (created_by: system), created once; later starts leave it as is. */
  async ensureSystemAssistants(storage: Pick<Storage, "assistants">): Promise<void> {
    for (const graphId of this.graphs.keys()) {
      const defaults = this.systemAssistantDefaults[graphId];
      await storage.assistants.create(
        {
          assistant_id: systemAssistantId(graphId),
          graph_id: graphId,
          name: graphId,
          metadata: { created_by: "system" },
          config: defaults?.config ?? {},
          ...(defaults?.context !== undefined ? { context: defaults.context } : {}),
        },
        { ifExists: "do_nothing" },
      );
    }
  }
}
