import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, isGraphInterrupt } from "@langchain/langgraph";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { Client } from "@langchain/langgraph-sdk";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, killAll, startCli } from "../../test/support/cli-process.js";

/** Turns per server: the regression answered 422 in about one resume of three. */
const TURNS = 20;

/**
 * LangGraph's own RemoteGraph against a real `serve` process: it invokes the example's approval graph up to
 * its interrupt() — it stops reading the run's stream at the `__interrupt__` event and throws GraphInterrupt —
 * then resumes the thread with a Command in the very next request, with the default multitask strategy
 * (reject). A client told that a run stopped must be able to act on it: every resume is admitted.
 */
async function interruptThenResumeAtOnce(url: string): Promise<{ resumed: number; failures: string[] }> {
  const remote = new RemoteGraph({ graphId: "approval", url });
  const client = new Client({ apiUrl: url });
  const failures: string[] = [];
  let resumed = 0;
  for (let turn = 0; turn < TURNS; turn++) {
    const thread = await client.threads.create();
    const config = { configurable: { thread_id: thread.thread_id } };
    const stopped = await remote.invoke({ request: `deploy v${turn}` }, config).then(
      () => new Error("the run did not stop at its interrupt"),
      (error: unknown) => error,
    );
    expect(isGraphInterrupt(stopped)).toBe(true);
    try {
      const values = (await remote.invoke(new Command({ resume: "approved" }), config)) as { request: string; decision: string };
      expect(values).toEqual({ request: `deploy v${turn}`, decision: "approved" });
      resumed += 1;
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { resumed, failures };
}

afterEach(async () => {
  await killAll();
});

describe("RemoteGraph: interrupt, then resume at once", () => {
  it(`is admitted every time on SQLite (${TURNS} turns)`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agent-server-remote-graph-"));
    try {
      const server = await startCli(["serve", "--config", EXAMPLE_CONFIG, "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir]);
      const { resumed, failures } = await interruptThenResumeAtOnce(server.url);
      expect(failures).toEqual([]);
      expect(resumed).toBe(TURNS);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it(`is admitted every time on PostgreSQL (${TURNS} turns)`, async () => {
    const schema: TestSchema = await createTestSchema("remote_graph");
    try {
      const server = await startCli([
        ...["serve", "--config", EXAMPLE_CONFIG, "--host", "127.0.0.1", "--port", "0"],
        ...["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema],
      ]);
      const { resumed, failures } = await interruptThenResumeAtOnce(server.url);
      expect(failures).toEqual([]);
      expect(resumed).toBe(TURNS);
    } finally {
      await killAll();
      await schema.drop();
    }
  });
});
