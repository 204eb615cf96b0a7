import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CompiledStateGraph } from "@langchain/langgraph";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { GraphRegistry } from "./registry.js";

/**
 * Which module scope a project's graphs load in (shared-scope.ts). The tests run in this order on
 * purpose: the process's shared scope goes to the first load that can use it, so the project with a
 * LangGraph of its own loads first and must leave it to the next one.
 */
const fixture = resolve(import.meta.dirname, "../../test/fixtures/project");
const storage = createMemoryStorage();
// Inside the repository, so the copy's own imports (@langchain/core, ...) resolve to the workspace's.
const results = resolve(import.meta.dirname, "../../.test-results");
mkdirSync(results, { recursive: true });
const ownCopy = mkdtempSync(join(results, "own-langgraph-"));

afterAll(async () => {
  await storage.close();
  rmSync(ownCopy, { recursive: true, force: true });
});

async function loaded(graphs: Record<string, string>, cwd: string) {
  const registry = new GraphRegistry(storage);
  await registry.load(graphs, cwd);
  return registry.get(Object.keys(graphs)[0]!, {});
}

describe("the module scope of a project's graphs", () => {
  it("is one of the project's own when its @langchain/langgraph is another copy than the server's", async () => {
    const server = dirname(createRequire(import.meta.url).resolve("@langchain/langgraph/package.json"));
    cpSync(server, join(ownCopy, "node_modules/@langchain/langgraph"), { recursive: true });
    writeFileSync(join(ownCopy, "package.json"), JSON.stringify({ name: "own-langgraph", private: true, type: "module" }));
    writeFileSync(
      join(ownCopy, "graph.ts"),
      [
        'import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";',
        "const steps: string[] = [];",
        'export const graph = new StateGraph(MessagesAnnotation).addNode("noop", () => ({ messages: steps })).addEdge("__start__", "noop").compile();',
      ].join("\n"),
    );
    const graph = await loaded({ own: "./graph.ts:graph" }, ownCopy);
    expect(graph.constructor.name).toBe("CompiledStateGraph");
    expect(graph).not.toBeInstanceOf(CompiledStateGraph);
  });

  it("is the server's own when the project's LangGraph is the server's: graph and server share its instances", async () => {
    const graph = await loaded({ compiled: "./graphs/echo.mts:graph" }, fixture);
    expect(graph).toBeInstanceOf(CompiledStateGraph);
    const out = await graph.invoke({ messages: [{ role: "user", content: "x" }] }, { configurable: { thread_id: crypto.randomUUID() } });
    expect(out.messages.at(-1).content).toMatch(/: x$/);
  });

  it("is a scope of its own for a second load in the same process: its graphs are objects of its own", async () => {
    const first = await loaded({ compiled: "./graphs/echo.mts:graph" }, fixture);
    const second = await loaded({ compiled: "./graphs/echo.mts:graph" }, fixture);
    expect(second).not.toBe(first);
    expect(second).not.toBeInstanceOf(CompiledStateGraph);
  });
});
