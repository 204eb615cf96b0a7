import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import type { Storage } from "@agent-server/core";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { ThreadStateService } from "../threads/index.js";

/** What the fixture factory records (test/fixtures/project/graphs/factory-runtime.mts). */
interface FactoryLoad {
  accessContext: string;
  executionRuntime: { context: unknown } | null;
  user: string | null;
  hasStore: boolean;
  config: { configurable?: Record<string, unknown> };
}

const loads = ((globalThis as Record<symbol, FactoryLoad[]>)[Symbol.for("agent-server.test.factory-runtime-loads")] ??= []);
const project = resolve(import.meta.dirname, "../../test/fixtures/project");
const auth = { user: { identity: "alice" }, permissions: [] };

/**
 * A graph factory `(config, runtime)` is told what each load is for, as langgraph-api (SDK 1.15's
 * `ServerRuntime`) tells it: a run (`threads.create_run`, with the run's context, on every attempt), a
 * state read (`threads.read`), a state write (`threads.update`), or a description of the graph
 * (`assistants.read`, the default); only a run has an `executionRuntime`.
 */
describe("the ServerRuntime a graph factory receives", () => {
  let storage: Storage;
  let engine: Engine;

  beforeEach(async () => {
    storage = createMemoryStorage();
    engine = await startEngine(storage);
    await engine.registry.load({ tenants: "./graphs/factory-runtime.mts:graph" }, project);
    await engine.registry.ensureSystemAssistants(storage);
    loads.length = 0;
  });

  afterEach(async () => {
    await engine.stop(0);
    await storage.close();
  });

  it("runs: threads.create_run with the run's context and user; the config is the run's, unchanged", async () => {
    const threadId = await newThread(storage);
    const context = { tenant: "acme" };
    const { end } = await engine.createRunAndWait({ assistant_id: "tenants", input: {}, context }, { threadId, auth });
    expect(end.status).toBe("success");
    expect(end.values).toMatchObject({ factoryContext: context, nodeContext: context, accessContext: "threads.create_run" });
    expect(loads).toEqual([
      {
        accessContext: "threads.create_run",
        executionRuntime: { context },
        user: "alice",
        hasStore: true,
        config: expect.objectContaining({ configurable: expect.objectContaining({ thread_id: threadId, graph_id: "tenants" }) }),
      },
    ]);
    // A run without a context is still a run: its execution runtime has no context.
    loads.length = 0;
    await engine.createRunAndWait({ assistant_id: "tenants", input: {} }, { threadId });
    expect(loads).toEqual([
      expect.objectContaining({ accessContext: "threads.create_run", executionRuntime: { context: undefined }, user: null }),
    ]);
  });

  it("a factory that refuses the run's context fails that run, not the server", async () => {
    const threadId = await newThread(storage);
    const { end } = await engine.createRunAndWait({ assistant_id: "tenants", input: {}, context: { reject: true } }, { threadId });
    expect(end).toMatchObject({ status: "error", error: { message: "the factory refused this context" } });
  });

  it("state reads are threads.read, state writes threads.update (the new state read back as threads.read), descriptions assistants.read", async () => {
    const threadId = await newThread(storage);
    await engine.createRunAndWait({ assistant_id: "tenants", input: {}, context: { tenant: "acme" } }, { threadId });
    const state = new ThreadStateService(storage, engine.registry);
    loads.length = 0;
    expect((await state.getState(threadId)).values).toMatchObject({ factoryContext: { tenant: "acme" } });
    await state.history(threadId);
    expect(loads.map((l) => [l.accessContext, l.executionRuntime])).toEqual([
      ["threads.read", null],
      ["threads.read", null],
    ]);

    loads.length = 0;
    await state.updateState(threadId, { values: { note: "edited" } });
    expect(loads.map((l) => l.accessContext)).toEqual(["threads.update", "threads.read"]);

    loads.length = 0;
    await engine.registry.get("tenants", {});
    expect(loads).toEqual([{ accessContext: "assistants.read", executionRuntime: null, user: null, hasStore: true, config: {} }]);
  });
});
