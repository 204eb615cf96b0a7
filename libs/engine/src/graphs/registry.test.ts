import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { applyEnv, loadLangGraphConfig } from "../config/langgraph-config.js";
import { systemAssistantDefaultsFromEnv } from "../config/system-assistant-defaults.js";
import { GraphRegistry, systemAssistantId } from "./registry.js";

const fixture = resolve(import.meta.dirname, "../../test/fixtures/project/langgraph.json");

describe("GraphRegistry", () => {
  it("derives system assistant ids as uuid5(graph_id, the LangGraph namespace)", () => {
    // Same id the official LangGraph server gives the graph "agent".
    expect(systemAssistantId("agent")).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
  });

  it("loads TypeScript graph modules at run time: compiled graph, StateGraph, factory and default export", async () => {
    const loaded = await loadLangGraphConfig(fixture);
    applyEnv(loaded.env);
    const storage = createMemoryStorage();
    const registry = new GraphRegistry(storage);
    await registry.load(loaded.config.graphs, loaded.cwd);
    expect(registry.ids()).toEqual(["compiled", "builder", "factory", "default_export"]);

    for (const id of ["compiled", "builder", "default_export"]) {
      const graph = await registry.get(id, {});
      const out = await graph.invoke({ messages: [{ role: "user", content: "x" }] }, { configurable: { thread_id: crypto.randomUUID() } });
      expect(out.messages.at(-1).content).toBe("from-env: x");
      // Compiled against the driver's checkpointer and store, whatever the module compiled it with.
      expect(graph.checkpointer).toBe(storage.checkpointer);
      expect(graph.store).toBe(storage.langgraphStore);
    }
    const made = await registry.get("factory", { configurable: { prefix: "per-run" } });
    const out = await made.invoke({ messages: [] }, { configurable: { thread_id: crypto.randomUUID() } });
    expect(out.messages.at(-1).content).toBe("per-run");

    await registry.ensureSystemAssistants(storage);
    await registry.ensureSystemAssistants(storage);
    const assistants = await storage.assistants.search({ limit: 10 });
    expect(assistants.map((a) => a.graph_id).sort()).toEqual(["builder", "compiled", "default_export", "factory"]);
    expect(registry.resolveAssistantId("compiled")).toBe(systemAssistantId("compiled"));
    expect(registry.resolveAssistantId("some-uuid")).toBe("some-uuid");
    await storage.close();
  });

  it("takes { path, description } entries: the description becomes the system assistant's, and follows the file", async () => {
    const cwd = resolve(import.meta.dirname, "../../test/fixtures/project");
    const storage = createMemoryStorage();
    const first = new GraphRegistry(storage);
    await first.load(
      { described: { path: "./graphs/echo.mts:graph", description: "Echoes the last message" }, plain: "./graphs/echo.mts:graph" },
      cwd,
    );
    expect(first.ids()).toEqual(["described", "plain"]);
    expect(first.description("described")).toBe("Echoes the last message");
    expect(first.description("plain")).toBeUndefined();
    await first.ensureSystemAssistants(storage);
    const created = await storage.assistants.get(systemAssistantId("described"));
    expect(created).toMatchObject({ graph_id: "described", description: "Echoes the last message", version: 1 });
    expect((await storage.assistants.get(systemAssistantId("plain")))?.description).toBeNull();

    // A restart with the same description leaves the assistant alone; an edited one is a new version.
    await first.ensureSystemAssistants(storage);
    expect((await storage.assistants.get(systemAssistantId("described")))?.version).toBe(1);
    const edited = new GraphRegistry(storage);
    await edited.load({ described: { path: "./graphs/echo.mts:graph", description: "Repeats you" } }, cwd);
    await edited.ensureSystemAssistants(storage);
    expect(await storage.assistants.get(systemAssistantId("described"))).toMatchObject({ description: "Repeats you", version: 2 });
  });

  it("creates system assistants with the LANGGRAPH_CONFIG defaults of their graph, and leaves existing ones as they are", async () => {
    const loaded = await loadLangGraphConfig(fixture);
    const storage = createMemoryStorage();
    const registry = new GraphRegistry(storage);
    await registry.load(loaded.config.graphs, loaded.cwd);
    registry.setSystemAssistantDefaults(
      systemAssistantDefaultsFromEnv(
        JSON.stringify({ compiled: { configurable: { model_name: "openai" } }, factory: { context: { model: "unknown" } } }),
      ),
    );
    await registry.ensureSystemAssistants(storage);
    const compiled = await storage.assistants.get(systemAssistantId("compiled"));
    expect(compiled).toMatchObject({ config: { configurable: { model_name: "openai" } }, metadata: { created_by: "system" } });
    const factory = await storage.assistants.get(systemAssistantId("factory"));
    expect(factory).toMatchObject({ config: {}, context: { model: "unknown" } });
    expect((await storage.assistants.get(systemAssistantId("builder")))?.config).toEqual({});

    // Only at creation, as on the official server: a restart with other defaults changes nothing.
    registry.setSystemAssistantDefaults({ compiled: { config: { configurable: { model_name: "anthropic" } } } });
    await registry.ensureSystemAssistants(storage);
    expect((await storage.assistants.get(systemAssistantId("compiled")))?.config).toEqual({ configurable: { model_name: "openai" } });
    await storage.close();
  });

  it("refuses a missing file, a missing export, and an export that is not a graph", async () => {
    const registry = new GraphRegistry(createMemoryStorage());
    const cwd = resolve(import.meta.dirname, "../../test/fixtures/project");
    await expect(registry.load({ g: "./graphs/missing.ts:graph" }, cwd)).rejects.toThrow(/file not found/);
    await expect(registry.load({ g: "./graphs/echo.mts:nope" }, cwd)).rejects.toThrow(/no export "nope"/);
    await expect(registry.load({ g: "./langgraph.json" }, cwd)).rejects.toThrow(InvalidInputError);
  });
});
