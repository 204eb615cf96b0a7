import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, killAll, memoryDevArgs, startCli } from "../../test/support/cli-process.js";
import { moduleLog, type ModuleLog } from "../../test/support/module-log.js";

let modules: ModuleLog | undefined;
afterEach(async () => {
  await killAll();
  modules?.dispose();
});

/** The URL without its query (tsx marks a module of a scope of its own with `?tsx-namespace=`). */
const withoutQuery = (url: string) => url.replace(/\?.*$/, "");

/**
 * What a start loads before it answers (issue 44): the project's graphs in the server's own module
 * scope, so LangGraph is evaluated once; the MCP SDK and gRPC only when something uses them.
 */
describe("a server start's modules", () => {
  it("loads the graphs with the server's own LangGraph, and the MCP SDK on the first /mcp request", async () => {
    modules = moduleLog();
    const server = await startCli(memoryDevArgs(EXAMPLE_CONFIG), { env: modules.env });
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);

    const atStart = modules.loaded();
    expect(atStart.filter((url) => /\/examples\/src\/(echo|approval|relay)\.ts$/.test(url))).toHaveLength(3);
    // One evaluation of LangGraph, shared by the server and the graphs: no module in a tsx scope of its own.
    expect(atStart.filter((url) => withoutQuery(url).endsWith("/node_modules/@langchain/langgraph/dist/index.js"))).toHaveLength(1);
    expect(atStart.filter((url) => url.includes("tsx-namespace"))).toEqual([]);
    expect(atStart.filter((url) => /\/@modelcontextprotocol\/sdk\/|\/@grpc\/grpc-js\//.test(url))).toEqual([]);

    const listed = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"name":"echo"');
    expect(modules.loaded().some((url) => url.includes("/@modelcontextprotocol/sdk/dist/esm/server/"))).toBe(true);
  });
});
