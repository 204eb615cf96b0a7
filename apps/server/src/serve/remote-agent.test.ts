import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { startReferenceAgent, type ReferenceAgent } from "@agent-server/testing/a2a-reference-agent";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killAll, startCli, type CliRun } from "../../test/support/cli-process.js";
import { freePort } from "../../test/support/ports.js";

/**
 * remoteAgent across real processes (issue 41): a caller server whose `relay` graph calls the `worker`
 * graph of a second server over A2A, both with the official clients in front; SIGKILL of either side
 * mid-call; the remote's input-required as a local interrupt; cancel propagation; and the same relay to
 * the @a2a-js/sdk reference server. On SQLite (each server its own data dir) and PostgreSQL (each its own
 * schema); a restarted server gets its data back.
 */
const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-remote-agents.json", import.meta.url));

type Server = CliRun & { url: string; client: Client };
type Message = { content: string; response_metadata?: { a2a?: { taskId: string; contextId: string; state: string } } };
type Values = { messages: Message[]; __interrupt__?: Array<{ value: Record<string, unknown> }> };

interface Driver {
  name: string;
  /** Storage flags for one server's own data, the same on every start of that server. */
  storage(): Promise<{ args: string[]; cleanup(): Promise<void> }>;
}

const DRIVERS: Driver[] = [
  {
    name: "SQLite",
    storage: async () => {
      const dir = mkdtempSync(join(tmpdir(), "agent-server-remote-"));
      return { args: ["--data-dir", dir], cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL",
    storage: async () => {
      const schema: TestSchema = await createTestSchema("remote");
      return { args: ["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema], cleanup: schema.drop };
    },
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

for (const driver of DRIVERS) {
  describe(`remoteAgent between two servers on ${driver.name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    let remoteArgs: string[];
    let callerArgs: string[];
    let remote: Server;
    let caller: Server;
    let remotePort: number;

    const start = async (args: string[], env: Record<string, string> = {}): Promise<Server> => {
      const run = await startCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--workers", "4", ...args], { env });
      return { ...run, client: new Client({ apiUrl: run.url }) };
    };
    const startRemote = () => start(["--port", String(remotePort), ...remoteArgs]);
    const startCaller = () => start(["--port", "0", ...callerArgs], { REMOTE_AGENT_URL: `http://127.0.0.1:${remotePort}/a2a/worker` });

    beforeAll(async () => {
      const [r, c] = await Promise.all([driver.storage(), driver.storage()]);
      cleanups.push(r.cleanup, c.cleanup);
      remoteArgs = r.args;
      callerArgs = c.args;
      remotePort = await freePort();
      [remote, caller] = await Promise.all([startRemote(), startCaller()]);
    }, 120_000);

    afterAll(async () => {
      await killAll();
      for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    });

    /** The remote's one busy thread (the caller's remote context) once its run is running. */
    const busyRemoteThread = () =>
      until(async () => (await remote.client.threads.search({ status: "busy", limit: 10 }))[0]?.thread_id, "the remote task to run");

    it("answers with the remote's reply; the next turn continues the remote context, whose first task still answers the first", async () => {
      const thread = await caller.client.threads.create();
      const first = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "one" }] },
      })) as Values;
      const answer = first.messages.at(-1)!;
      expect(answer.content).toBe("echo: one");
      const record = answer.response_metadata!.a2a!;
      expect(record.state).toBe("completed");

      const second = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "two" }] },
      })) as Values;
      expect(second.messages.at(-1)!.content).toBe("echo: two");
      expect(second.messages.at(-1)!.response_metadata!.a2a!.contextId).toBe(record.contextId);
      // The remote context holds both turns; its first task still answers the first.
      const remoteRuns = await remote.client.runs.list(record.contextId);
      expect(remoteRuns).toHaveLength(2);
      const a2a = await new ClientFactory().createFromUrl(`${remote.url}/a2a/worker/`);
      const task = await a2a.getTask({ tenant: "", id: record.taskId });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "text", value: "echo: one" });
    });

    it("SIGKILL of the caller while the remote works: after a restart the run succeeds with the answer, one remote task", async () => {
      const thread = await caller.client.threads.create();
      const run = await caller.client.runs.create(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "slow 3000 after a crash" }] },
      });
      const remoteThread = await busyRemoteThread();
      caller.child.kill("SIGKILL");
      await caller.exited;
      caller = await startCaller();
      await caller.client.runs.join(thread.thread_id, run.run_id);
      expect((await caller.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
      const state = (await caller.client.threads.getState(thread.thread_id)).values as Values;
      expect(state.messages.at(-1)!.content).toBe("done: after a crash");
      expect(state.messages.at(-1)!.response_metadata!.a2a!.contextId).toBe(remoteThread);
      expect(await remote.client.runs.list(remoteThread)).toHaveLength(1);
    });

    it("SIGKILL of the remote while the caller waits, the remote restarted on its data: the caller's run succeeds, one task", async () => {
      const thread = await caller.client.threads.create();
      const run = await caller.client.runs.create(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "slow 2000 through a remote crash" }] },
      });
      const remoteThread = await busyRemoteThread();
      remote.child.kill("SIGKILL");
      await remote.exited;
      await sleep(1_000);
      remote = await startRemote();
      await caller.client.runs.join(thread.thread_id, run.run_id);
      expect((await caller.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
      const state = (await caller.client.threads.getState(thread.thread_id)).values as Values;
      expect(state.messages.at(-1)!.content).toBe("done: through a remote crash");
      const remoteRuns = await remote.client.runs.list(remoteThread);
      expect(remoteRuns).toHaveLength(1);
      expect(remoteRuns[0]!.status).toBe("success");
    });

    it("the remote's input-required is a local interrupt carrying its question; the resume completes the same remote task", async () => {
      const thread = await caller.client.threads.create();
      const asked = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "ask" }] },
      })) as Values;
      const question = asked.__interrupt__?.[0]?.value;
      expect(question).toMatchObject({ type: "a2a.input_required", agent: "worker" });
      expect(String(question!.question)).toContain("What is your name?");
      expect((await caller.client.threads.get(thread.thread_id)).status).toBe("interrupted");

      const resumed = (await caller.client.runs.wait(thread.thread_id, "relay", { command: { resume: "Ada" } })) as Values;
      const answer = resumed.messages.at(-1)!;
      expect(answer.content).toBe("hello Ada");
      expect(answer.response_metadata!.a2a!.taskId).toBe(question!.taskId);
      const a2a = await new ClientFactory().createFromUrl(`${remote.url}/a2a/worker/`);
      expect((await a2a.getTask({ tenant: "", id: String(question!.taskId) })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("cancelling the local run cancels the remote task within 5 s", async () => {
      const thread = await caller.client.threads.create();
      const run = await caller.client.runs.create(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "slow 60000 never mind" }] },
      });
      const remoteThread = await busyRemoteThread();
      const [remoteRun] = await remote.client.runs.list(remoteThread);
      await caller.client.runs.cancel(thread.thread_id, run.run_id);
      const cancelledAt = Date.now();
      await until(
        async () => ((await remote.client.runs.get(remoteThread, remoteRun!.run_id)).status === "interrupted" ? true : undefined),
        "the remote task to be cancelled",
        5_000,
      );
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
      expect((await caller.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    });
  });

  describe(`remoteAgent on ${driver.name} calling the @a2a-js/sdk reference server`, () => {
    let reference: ReferenceAgent;
    let caller: Server;
    let cleanup: () => Promise<void>;
    let callerArgs: string[];
    const startCaller = async () => {
      const run = await startCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--workers", "4", ...callerArgs], {
        env: { REMOTE_AGENT_URL: reference.url },
      });
      return { ...run, client: new Client({ apiUrl: run.url }) };
    };

    beforeAll(async () => {
      reference = await startReferenceAgent();
      const storage = await driver.storage();
      cleanup = storage.cleanup;
      callerArgs = storage.args;
      caller = await startCaller();
    }, 120_000);

    afterEach(() => {
      reference.tasks.length = 0;
    });

    afterAll(async () => {
      await killAll();
      await reference.close();
      await cleanup();
    });

    it("relays, continues the context, and sends each message once", async () => {
      const thread = await caller.client.threads.create();
      const first = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "hi" }] },
      })) as Values;
      expect(first.messages.at(-1)!.content).toBe("echo: hi (message 1 of this context)");
      const second = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "again" }] },
      })) as Values;
      expect(second.messages.at(-1)!.content).toBe("echo: again (message 2 of this context)");
      expect(reference.tasks).toHaveLength(2);
    });

    it("input-required and resume through the reference server: one task", async () => {
      const thread = await caller.client.threads.create();
      const asked = (await caller.client.runs.wait(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "ask" }] },
      })) as Values;
      expect(asked.__interrupt__?.[0]?.value).toMatchObject({ type: "a2a.input_required", question: "What is your name?" });
      const resumed = (await caller.client.runs.wait(thread.thread_id, "relay", { command: { resume: "Grace" } })) as Values;
      expect(resumed.messages.at(-1)!.content).toBe("hello Grace");
      expect(reference.tasks).toHaveLength(1);
    });

    it("SIGKILL of the caller while the reference agent works: the restarted caller re-attaches, the message was sent once", async () => {
      const thread = await caller.client.threads.create();
      const run = await caller.client.runs.create(thread.thread_id, "relay", {
        input: { messages: [{ role: "user", content: "wait 3000" }] },
      });
      await until(async () => (reference.tasks.length === 1 ? true : undefined), "the reference task");
      caller.child.kill("SIGKILL");
      await caller.exited;
      caller = await startCaller();
      await caller.client.runs.join(thread.thread_id, run.run_id);
      expect((await caller.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
      const state = (await caller.client.threads.getState(thread.thread_id)).values as Values;
      expect(state.messages.at(-1)!.content).toBe("waited");
      expect(reference.tasks).toHaveLength(1);
    });
  });
}
