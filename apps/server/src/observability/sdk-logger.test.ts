import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, startCli, memoryDevArgs } from "../../test/support/cli-process.js";

afterEach(killAll);

const GRAPH_FILE = fileURLToPath(new URL("../../test/support/fixture-project/logging.ts", import.meta.url));

describe("getLogger() of @langchain/langgraph-sdk/logging", () => {
  it("works at import and inside nodes, each node record tagged with its graph, run and thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-sdk-logger-"));
    try {
      writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { logs: `${GRAPH_FILE}:graph` } }));
      const server = await startCli(memoryDevArgs(join(dir, "langgraph.json")));
      const client = new Client({ apiUrl: server.url });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "logs", { input: { n: 1 } });
      await client.runs.join(thread.thread_id, run.run_id);
      await server.waitFor(/as an info object/);
      const records = server
        .stdout()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.find((r) => r.msg === "graph module loaded")).toMatchObject({ level: 30, source: "graph" });
      expect(records.find((r) => r.msg === "inside the node")).toMatchObject({
        level: 40,
        n: 1,
        graph_id: "logs",
        run_id: run.run_id,
        thread_id: thread.thread_id,
      });
      expect(records.find((r) => r.msg === "as an info object")).toMatchObject({ step: "log", run_id: run.run_id });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
