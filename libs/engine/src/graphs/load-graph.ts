import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidInputError } from "@agent-server/core";
import type { ServerRuntime } from "./server-runtime.js";
import { claimSharedScope, importShared, sharesServerLangGraph } from "./shared-scope.js";
import type { CompiledGraph, RunnableConfig } from "./types.js";

/** Imports a module (by URL) with the same module instances the graph module got. */
export type ModuleScope = (url: string) => Promise<unknown>;

/**
 * What a graph spec's export resolves to: a compiled graph, or a factory called at each load (every run
 * attempt, state read or write, description); with the scope its module was loaded in (absent for graphs
 * registered in process).
 */
export type ResolvedGraph = ({ kind: "compiled"; graph: CompiledGraph } | { kind: "factory"; make: GraphFactory }) & {
  scope?: ModuleScope;
};

/** A graph built per load: called with the run's (or assistant's) config and what the load is for. */
export type GraphFactory = (config: RunnableConfig, runtime: ServerRuntime) => Promise<CompiledGraph>;

export interface GraphSpec {
  graphId: string;
  /** Absolute path of the module. */
  sourceFile: string;
  exportName: string;
}

export function parseGraphSpec(graphId: string, spec: string, cwd: string): GraphSpec {
  const [file, exportName = "default"] = spec.split(":", 2);
  return { graphId, sourceFile: resolve(cwd, file), exportName };
}

/**
 * Imports a graph module at run time and resolves its export, as `langgraphjs dev` does: a compiled
 * graph, a StateGraph (compiled here), a promise of either, or a function returning either, called with
 * the config and the `ServerRuntime` of each load (server-runtime.ts). TypeScript modules load through
 * tsx, so a project needs no build step.
 */
export async function loadGraph(spec: GraphSpec, scopeFor: (file: string) => Promise<ModuleScope> = moduleScope): Promise<ResolvedGraph> {
  try {
    await stat(spec.sourceFile);
  } catch {
    throw new InvalidInputError(`graph "${spec.graphId}": file not found: ${spec.sourceFile}`);
  }
  const scope = await scopeFor(spec.sourceFile);
  const module = await scope(pathToFileURL(spec.sourceFile).href);
  const exported = (module as Record<string, unknown>)[spec.exportName];
  if (exported == null) {
    throw new InvalidInputError(`graph "${spec.graphId}": ${spec.sourceFile} has no export "${spec.exportName}"`);
  }
  if (typeof exported === "function" && !isGraphLike(exported)) {
    const factory = exported as (config: RunnableConfig, runtime: ServerRuntime) => unknown;
    return { kind: "factory", make: async (config, runtime) => toCompiled(spec, await factory(config, runtime)), scope };
  }
  return { kind: "compiled", graph: toCompiled(spec, await exported), scope };
}

/**
 * The module scopes of one project load (`Registry.load`). TypeScript graphs whose LangGraph is the
 * server's own load in the server's scope (shared-scope.ts): LangGraph is evaluated once, graph and
 * server share its instances, as in the official server. Otherwise all the TypeScript graphs of the load
 * share one tsx scope of their own, evaluated once instead of once per graph; each such scope costs a
 * full evaluation of LangGraph (~0.6 s).
 */
export function projectScopes(): (file: string) => Promise<ModuleScope> {
  let typescript: Promise<ModuleScope> | undefined;
  let shared: boolean | undefined;
  return async (file) => {
    if (!isTypeScript(file)) return moduleScope(file);
    if (sharesServerLangGraph(file) && (shared ??= claimSharedScope())) return importShared;
    return (typescript ??= moduleScope(file));
  };
}

function isTypeScript(file: string): boolean {
  return /\.(m|c)?tsx?$/.test(file);
}

/** TypeScript modules load through tsx, in a scope of their own; JavaScript ones as usual. */
async function moduleScope(file: string): Promise<ModuleScope> {
  if (isTypeScript(file)) {
    const { tsImport } = await import("tsx/esm/api");
    const scoped = (await tsImport(
      new URL("./module-scope.ts", import.meta.url).href,
      import.meta.url,
    )) as typeof import("./module-scope.js");
    return scoped.importInScope;
  }
  return (url) => import(url);
}

function isGraphLike(value: unknown): boolean {
  return value != null && (typeof value === "object" || typeof value === "function") && "invoke" in (value as object);
}

function toCompiled(spec: GraphSpec, value: unknown): CompiledGraph {
  if (value != null && typeof value === "object") {
    const candidate = value as { compile?: unknown; invoke?: unknown; graph?: unknown; builder?: unknown };
    if (typeof candidate.compile === "function" && typeof candidate.invoke !== "function") {
      return (candidate.compile as () => CompiledGraph)();
    }
    // createAgent() returns a wrapper whose `.graph` is the real compiled graph.
    const inner = candidate.graph as { builder?: unknown; invoke?: unknown } | undefined;
    if (inner && typeof inner === "object" && inner.builder && typeof inner.invoke === "function") {
      return inner as unknown as CompiledGraph;
    }
    if (typeof candidate.invoke === "function" && typeof (value as { streamEvents?: unknown }).streamEvents === "function") {
      return value as CompiledGraph;
    }
  }
  throw new InvalidInputError(
    `graph "${spec.graphId}": export "${spec.exportName}" of ${spec.sourceFile} is not a graph, a StateGraph or a function returning one`,
  );
}
