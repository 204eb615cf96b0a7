import { v5 as uuidv5 } from "uuid";
import { NotFoundError, type Storage } from "@agent-server/core";
import { readGraphEntry, type GraphEntry } from "../config/graph-entry.js";
import { loadGraph, parseGraphSpec, type GraphSpec, type ResolvedGraph } from "./load-graph.js";
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
  private readonly graphs = new Map<string, { spec: GraphSpec; resolved: ResolvedGraph; description?: string }>();

  constructor(private readonly storage: Pick<Storage, "checkpointer" | "langgraphStore">) {}

  /**
   * Loads every graph of the config (paths relative to `cwd`), in either form of a `graphs` entry; fails
   * on the first that cannot load.
   */
  async load(graphs: Record<string, GraphEntry>, cwd: string): Promise<void> {
    for (const [graphId, entry] of Object.entries(graphs)) {
      const { spec: raw, description } = readGraphEntry(entry);
      const spec = parseGraphSpec(graphId, raw, cwd);
      this.graphs.set(graphId, { spec, resolved: await loadGraph(spec), description });
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

  /** The `description` of the graph's langgraph.json entry, if it has one. */
  description(graphId: string): string | undefined {
    return this.graphs.get(graphId)?.description;
  }

  /**
   * One system assistant per graph (created_by: system), created once; later starts leave it as is,
   * except for a description langgraph.json gives that differs from the stored one: the file is where
   * it is edited, so it is written as a new version of the assistant.
   */
  async ensureSystemAssistants(storage: Pick<Storage, "assistants">): Promise<void> {
    for (const [graphId, { description }] of this.graphs) {
      const assistantId = systemAssistantId(graphId);
      const assistant = await storage.assistants.create(
        {
          assistant_id: assistantId,
          graph_id: graphId,
          name: graphId,
          description: description ?? null,
          metadata: { created_by: "system" },
          config: {},
        },
        { ifExists: "do_nothing" },
      );
      if (description !== undefined && assistant.description !== description) {
        await storage.assistants.update(assistantId, { description });
      }
    }
  }
}
