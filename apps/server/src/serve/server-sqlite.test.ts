import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, jsonLines, killAll, startCli } from "../../test/support/cli-process.js";
import { exerciseExample } from "../../test/support/scenario.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "agent-server-cli-sqlite-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("agent-server dev on SQLite (the default storage)", () => {
  it("serves the example project, logs runs as JSON lines, and stops cleanly on SIGTERM with the data on disk", async () => {
    const server = await startCli(["dev", "--config", EXAMPLE_CONFIG, "--port", "0", "--data-dir", dataDir, "--log-format", "json"]);
    const file = join(dataDir, "agent-server.sqlite");

    const startup = jsonLines(server.stdout());
    expect(startup.find((l) => l.msg === `Storage: sqlite (${file})`)).toMatchObject({ storage: "sqlite", level: 30 });
    expect(startup.find((l) => Array.isArray(l.graphs) && !l.url)).toMatchObject({ graphs: ["echo", "approval", "relay"] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const { threadId } = await exerciseExample(server.url);

    // One start and one end record per run, the end with status and duration.
    await server.waitFor(/"msg":"run ended/);
    const lines = jsonLines(server.stdout());
    const started = lines.filter((l) => l.msg === "run started");
    const ended = lines.filter((l) => typeof l.msg === "string" && l.msg.startsWith("run ended"));
    expect(started).toEqual([expect.objectContaining({ thread_id: threadId, attempt: 1, run_id: expect.any(String) })]);
    expect(ended).toEqual([
      expect.objectContaining({ run_id: started[0].run_id, thread_id: threadId, status: "success", duration_ms: expect.any(Number) }),
    ]);
    expect(ended[0].duration_ms as number).toBeGreaterThanOrEqual(0);
    expect(typeof ended[0].time).toBe("string");

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(jsonLines(server.stdout()).map((l) => l.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^SIGTERM received/), "stopped"]),
    );

    // The file reopens with what the server wrote: the thread, its values, the finished run.
    const storage = await openSqliteStorage({ path: file });
    try {
      const thread = await storage.threads.get(threadId);
      expect(thread?.status).toBe("idle");
      expect((thread?.values as { messages: { content: string }[] }).messages.at(-1)?.content).toBe("echo: hello");
      const runs = await storage.runs.search({ thread_id: threadId });
      expect(runs.map((r) => r.status)).toEqual(["success"]);
    } finally {
      await storage.close();
    }
  });

  it("keeps the data across a restart on the same data dir", async () => {
    const first = await startCli(["dev", "--config", EXAMPLE_CONFIG, "--port", "0", "--data-dir", dataDir, "--log-format", "json"]);
    const { threadId } = await exerciseExample(first.url);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await startCli(["dev", "--config", EXAMPLE_CONFIG, "--port", "0", "--data-dir", dataDir, "--log-format", "json"]);
    // Nothing left to migrate on the second start; the thread is still there.
    expect(jsonLines(second.stdout()).find((l) => l.storage === "sqlite" && "migrations" in l)).toMatchObject({ migrations: [] });
    const client = new Client({ apiUrl: second.url });
    expect(await client.threads.get(threadId)).toMatchObject({ thread_id: threadId, status: "idle" });
  });
});
