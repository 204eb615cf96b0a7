import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemAssistantId } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE } from "../../test/support/langgraph-api-fixture/make-fixture.js";
import { killAll, runCli } from "../../test/support/cli-process.js";
import { importDevFolder } from "./index.js";

const DEV_DIR = new URL("../../test/support/langgraph-api-fixture/.langgraph_api/", import.meta.url).pathname;

afterEach(killAll);

describe("import-dev: the official JS dev server's .langgraph_api folder", () => {
  it("imports assistants with their versions, threads with state and checkpoints, runs and store items", async () => {
    const storage = createMemoryStorage();
    try {
      const report = await importDevFolder(storage, DEV_DIR);
      expect(report.files).toEqual([".langgraphjs_ops.json", ".langgraphjs_api.checkpointer.json", ".langgraphjs_api.store.json"]);
      expect(report.counts.assistant).toMatchObject({ imported: 3, skipped: 0 });
      expect(report.counts.thread).toMatchObject({ imported: 2, skipped: 0 });
      expect(report.counts.run).toMatchObject({ imported: 2, skipped: 0 });
      expect(report.counts.checkpoint.imported).toBeGreaterThanOrEqual(4);
      expect(report.counts.store_item).toMatchObject({ imported: 1, skipped: 0 });
      // Old data: no results, nothing to skip.
      expect(report.counts.result).toEqual({ imported: 0, skipped: 0, why: {} });

      const custom = await storage.assistants.get(FIXTURE.customAssistant);
      expect(custom).toMatchObject({ name: "polite echo v2", graph_id: "echo", version: 2, created_at: FIXTURE.created.toISOString() });
      expect((await storage.assistants.listVersions(FIXTURE.customAssistant)).map((v) => [v.version, v.name])).toEqual([
        [2, "polite echo v2"],
        [1, "polite echo"],
      ]);

      // Messages come back in the wire shape, dates as ISO strings.
      const thread = await storage.threads.get(FIXTURE.echoThread);
      expect(thread).toMatchObject({ status: "idle", created_at: "2025-03-01T10:01:00.000Z", metadata: { graph_id: "echo" } });
      expect((thread?.values as { messages: { type: string; content: string }[] }).messages.map((m) => [m.type, m.content])).toEqual([
        ["human", "hello from the dev server"],
        ["ai", "echo: hello from the dev server"],
      ]);
      const waiting = await storage.threads.get(FIXTURE.approvalThread);
      expect(waiting?.status).toBe("interrupted");
      expect(Object.values(waiting!.interrupts).flat()).toEqual([expect.objectContaining({ value: { question: 'Approve "deploy v2"?' } })]);

      const run = await storage.runs.get(FIXTURE.echoRun);
      expect(run).toMatchObject({ status: "success", assistant_id: systemAssistantId("echo"), created_at: "2025-03-01T10:01:00.000Z" });
      expect(await storage.runs.getResult!(FIXTURE.echoRun)).toBeNull();
      expect(await storage.store.get(["users", "u1"], "prefs")).toMatchObject({ value: { theme: "dark" } });

      // The restored checkpoints are the thread's state: a graph continues the echo thread and resumes the approval.
      const engine = await startEngine(storage);
      try {
        const next = await engine.createRunAndWait(
          { assistant_id: "echo", input: { messages: [{ role: "user", content: "again" }] } },
          { threadId: FIXTURE.echoThread },
        );
        expect((next.end.values as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual([
          "hello from the dev server",
          "echo: hello from the dev server",
          "again",
          "echo: again",
        ]);
        const resumed = await engine.createRunAndWait(
          { assistant_id: "approval", command: { resume: "approved" } },
          { threadId: FIXTURE.approvalThread },
        );
        expect(resumed.end.values).toMatchObject({ request: "deploy v2", decision: "approved" });
      } finally {
        await engine.stop(1000);
      }

      // Importing again skips everything.
      const again = await importDevFolder(storage, DEV_DIR);
      expect(Object.values(again.counts).every((c) => c.imported === 0)).toBe(true);
      expect(again.counts.thread.why).toEqual({ exists: 2 });
    } finally {
      await storage.close();
    }
  });

  it("through the CLI into SQLite, from the default ./.langgraph_api of the working directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agent-server-import-dev-"));
    try {
      const run = runCli(["import-dev", "--data-dir", dataDir], { cwd: join(DEV_DIR, "..") });
      expect(await run.exited, run.stderr()).toBe(0);
      expect(run.stdout()).toMatch(/thread\s+2 imported, 0 skipped/);
      expect(run.stdout()).toMatch(/result\s+0 imported, 0 skipped/);
      const storage = await openSqliteStorage({ path: join(dataDir, "agent-server.sqlite") });
      try {
        expect((await storage.threads.get(FIXTURE.approvalThread))?.status).toBe("interrupted");
        expect(await storage.checkpointer.getTuple({ configurable: { thread_id: FIXTURE.echoThread, checkpoint_ns: "" } })).toBeDefined();
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a folder without the dev server's files, or a broken file, is an error with exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-import-dev-bad-"));
    try {
      const empty = runCli(["import-dev", join(dir), "--data-dir", join(dir, "data")]);
      expect(await empty.exited).toBe(1);
      expect(empty.stderr()).toContain("not a .langgraph_api folder");
      writeFileSync(join(dir, ".langgraphjs_ops.json"), "{ not json");
      const broken = runCli(["import-dev", join(dir), "--data-dir", join(dir, "data")]);
      expect(await broken.exited).toBe(1);
      expect(broken.stderr()).toContain(".langgraphjs_ops.json: not readable");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
