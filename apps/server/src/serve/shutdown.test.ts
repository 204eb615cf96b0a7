import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli } from "../../test/support/cli-process.js";

const FIXTURE = fileURLToPath(new URL("../../test/support/fixture-project/langgraph.json", import.meta.url));

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "agent-server-cli-shutdown-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the fixture project on SQLite and a `slow` run sleeping `ms`; resolves once the run executes. */
async function serverWithSlowRun(ms: number, graceSeconds: number) {
  const server = await startCli([
    "dev",
    "--config",
    FIXTURE,
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--log-format",
    "json",
    "--grace-period",
    String(graceSeconds),
    "--no-reload",
  ]);
  const client = new Client({ apiUrl: server.url });
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, "slow", { input: { ms } });
  await server.waitFor(/"msg":"run started"/);
  return { server, threadId: thread.thread_id, runId: run.run_id };
}

async function runStatus(threadId: string, runId: string): Promise<{ run?: string; thread?: string }> {
  const storage = await openSqliteStorage({ path: join(dataDir, "agent-server.sqlite") });
  try {
    return { run: (await storage.runs.get(runId, threadId))?.status, thread: (await storage.threads.get(threadId))?.status };
  } finally {
    await storage.close();
  }
}

describe("agent-server shutdown on SIGTERM / SIGINT", () => {
  it("keeps serving HTTP while a running run finishes within the grace period, then stops listening and exits 0", async () => {
    const { server, threadId, runId } = await serverWithSlowRun(1500, 30);
    // --no-reload: the server is the process we started, no supervisor in between.
    expect(jsonLines(server.stdout())[0].pid).toBe(server.child.pid);
    server.child.kill("SIGTERM");
    await server.waitFor(/"msg":"SIGTERM received/);
    expect((await fetch(`${server.url}/info`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(503);
    expect(await server.exited).toBe(0);
    await expect(fetch(`${server.url}/info`)).rejects.toThrow();
    expect(await runStatus(threadId, runId)).toEqual({ run: "success", thread: "idle" });
  });

  it("hands a run still inside its step after the grace period and the drain timeout back to the queue, and exits 0", async () => {
    const { server, threadId, runId } = await serverWithSlowRun(120_000, 1);
    const signalled = Date.now();
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
    // 1 s of grace, 5 s (the default) for the step to end, then handed back mid-step.
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(server.stdout()).toMatch(/"msg":"run handed back after attempt 1 \(shutdown\)"/);
    // Not ended: the next start resumes it (its thread stays busy meanwhile).
    expect(await runStatus(threadId, runId)).toEqual({ run: "pending", thread: "busy" });
  });

  it("exits at once on a second signal during the grace period", async () => {
    const { server } = await serverWithSlowRun(120_000, 120);
    server.child.kill("SIGTERM");
    await server.waitFor(/"msg":"SIGTERM received/);
    const again = Date.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(143);
    expect(Date.now() - again).toBeLessThan(5_000);
    expect(server.stdout()).toMatch(/SIGTERM received again: exiting now/);
  });
});
