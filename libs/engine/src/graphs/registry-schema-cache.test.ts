import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { getPriority as osPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { Engine } from "../engine.js";
import { GraphRegistry } from "./registry.js";
import type { StaticSchemaOptions } from "./schemas/static-schema-cache.js";
import { NO_SCHEMAS } from "./schemas/types.js";

/**
 * Source schemas read at start, kept on disk across restarts, invalidated by an edit of what the graph
 * imports, and never waited for past a request's budget. A project of its own in a temp folder (its
 * node_modules linked to the workspace's), so its files can be edited.
 */
const GRAPH = `import { StateGraph } from "@langchain/langgraph";
import { State } from "./state.mjs";

export const graph = new StateGraph(State)
  .addNode("noop", () => ({}))
  .addEdge("__start__", "noop")
  .compile();
`;
const state = (modes: string[]) => `import { Annotation } from "@langchain/langgraph";

export const State = Annotation.Root({ mode: Annotation<${modes.map((m) => JSON.stringify(m)).join(" | ")}>() });
`;
const GRAPHS = { modes: "./graph.mts:graph" };

/** What the schema extraction reported, and a way to wait for its next report. */
class SchemaEvents {
  readonly extracted: string[][] = [];
  readonly cacheHits: string[][] = [];
  readonly failures: string[] = [];
  private waiters: (() => void)[] = [];

  options(cacheDir: string): Partial<StaticSchemaOptions> {
    return {
      cacheDir,
      onExtracted: (graphIds) => this.record(this.extracted, graphIds),
      onCacheHit: (graphIds) => this.record(this.cacheHits, graphIds),
      onFailure: (_graphIds, error) => this.record(this.failures, error.message),
      onCacheUnwritable: (error) => this.record(this.failures, error.message),
    };
  }

  /** Resolves at the next extraction, cache hit or failure reported. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private record<T>(list: T[], item: T): void {
    list.push(item);
    this.waiters.splice(0).forEach((wake) => wake());
  }
}

const modeSchema = (modes: string[]) => ({ properties: { mode: { type: "string", enum: modes } } });

/** Whether a thread of this process ran at nice 19 before `until` settled, and the main thread's nice value. */
async function watchThreadNiceness(until: Promise<unknown>): Promise<{ lowest: boolean; main: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const niceOf = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
  let lowest = false;
  while (!done && process.platform === "linux") {
    for (const task of readdirSync("/proc/self/task")) {
      try {
        if (niceOf(task) === 19) lowest = true;
      } catch {
        // The thread ended meanwhile.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { lowest, main: process.platform === "linux" ? niceOf(String(process.pid)) : osPriority() };
}

describe("source schemas across restarts", () => {
  const storage = createMemoryStorage();
  let root: string;
  let project: string;
  let cacheDir: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "schema-cache-"));
    project = join(root, "project");
    cacheDir = join(root, "data", "schema-cache");
    mkdirSync(project);
    const langgraph = createRequire(import.meta.url).resolve("@langchain/langgraph/package.json");
    symlinkSync(dirname(dirname(dirname(langgraph))), join(project, "node_modules"), "dir");
    writeFileSync(join(project, "graph.mts"), GRAPH);
    writeFileSync(join(project, "state.mts"), state(["careful", "fast"]));
  });
  afterAll(() => {
    storage.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** An engine over the project, as a server start makes one: graphs loaded, then started. */
  async function startEngine(events: SchemaEvents, dir = cacheDir): Promise<Engine> {
    const engine = new Engine({ storage, schemas: events.options(dir) });
    await engine.registry.load(GRAPHS, project);
    await engine.start();
    return engine;
  }

  async function schemasOf(registry: GraphRegistry) {
    return registry.schemas("modes", await registry.get("modes", {}));
  }

  it("starts reading the source at engine start, before any request, and writes the result to the cache folder", async () => {
    const events = new SchemaEvents();
    const extracted = events.next();
    const engine = await startEngine(events);
    // The compiler's thread runs at the lowest priority (Linux: a thread's nice value is its own), the
    // server's own threads at theirs.
    const niceness = watchThreadNiceness(extracted);
    await extracted;
    const { lowest, main } = await niceness;
    expect(lowest).toBe(process.platform === "linux");
    expect(main).toBe(osPriority());
    expect(events).toMatchObject({ extracted: [["modes"]], failures: [] });
    expect(readdirSync(cacheDir).filter((name) => name.endsWith(".json"))).toHaveLength(1);
    expect((await schemasOf(engine.registry)).state).toMatchObject(modeSchema(["careful", "fast"]));
    await engine.stop(0);
  }, 120_000);

  it("answers from the cache after a restart, without an extraction", async () => {
    const events = new SchemaEvents();
    const engine = await startEngine(events);
    expect((await schemasOf(engine.registry)).state).toMatchObject(modeSchema(["careful", "fast"]));
    expect(events.cacheHits).toEqual([["modes"]]);
    expect(events.extracted).toEqual([]);
    await engine.stop(0);
  }, 120_000);

  it("extracts again when a file the graph imports changed, and caches the new result", async () => {
    writeFileSync(join(project, "state.mts"), state(["careful", "fast", "thorough"]));
    const events = new SchemaEvents();
    const extracted = events.next();
    const engine = await startEngine(events);
    await extracted;
    expect(events).toMatchObject({ extracted: [["modes"]], cacheHits: [], failures: [] });
    expect((await schemasOf(engine.registry)).state).toMatchObject(modeSchema(["careful", "fast", "thorough"]));
    await engine.stop(0);

    const restarted = new SchemaEvents();
    const again = await startEngine(restarted);
    expect((await schemasOf(again.registry)).state).toMatchObject(modeSchema(["careful", "fast", "thorough"]));
    expect(restarted).toMatchObject({ extracted: [], cacheHits: [["modes"]] });
    await again.stop(0);
  }, 120_000);

  it("answers a request made during the extraction with the run-time schemas, without waiting for it", async () => {
    const events = new SchemaEvents();
    const extracted = events.next();
    const engine = await startEngine(events, join(root, "cold-cache"));
    const { registry } = engine;
    const graph = await registry.get("modes", {});
    // An Annotation.Root state carries no types at run time: null schemas, channel names for a subgraph.
    expect(await registry.schemas("modes", graph, { waitForSourceMs: 0 })).toEqual(NO_SCHEMAS);
    expect((await registry.subgraphSchemas("modes", "any", graph, { waitForSourceMs: 0 })).state).toEqual({
      type: "object",
      properties: { mode: {} },
    });
    expect(events.extracted).toEqual([]);
    // The extraction went on, and later requests get its result, the impatient ones too.
    await extracted;
    expect(events).toMatchObject({ extracted: [["modes"]], failures: [] });
    expect((await registry.schemas("modes", graph, { waitForSourceMs: 0 })).state).toMatchObject(
      modeSchema(["careful", "fast", "thorough"]),
    );
    await engine.stop(0);
  }, 120_000);

  it("never writes a cache folder inside node_modules", async () => {
    const events = new SchemaEvents();
    const extracted = events.next();
    const inside = join(project, "node_modules", ".cache", `agent-server-schemas-${process.pid}`);
    const engine = await startEngine(events, inside);
    await extracted;
    expect(events).toMatchObject({ extracted: [["modes"]], failures: [] });
    expect(existsSync(inside)).toBe(false);
    await engine.stop(0);
  }, 120_000);
});
