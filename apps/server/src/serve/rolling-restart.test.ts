import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { createTestSchema } from "@agent-server/testing/postgres";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, startCli, type CliRun } from "../../test/support/cli-process.js";
import { executorOf, startServeProcesses } from "../../test/support/serve-processes.js";

/**
 * Rolling restarts (issue 17, docs/operations.md): SIGTERM while runs and A2A tasks longer than the grace
 * period execute. The process drains — /ready answers 503, /ok 200, runs still executing at the end of
 * the grace period stop at their next step boundary and go back to the queue — and the next process
 * (the same one restarted on SQLite, another one on PostgreSQL) finishes them from their checkpoints.
 */
const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-scale-out.json", import.meta.url));
const STEPS = ["plan", "work", "check", "reply"];
/** Each of the four steps of the `steps` graph takes this long: a run (6 s) outlives the grace period (1 s). */
const STEP_MS = 1500;
const DRAIN_FLAGS = ["--grace-period", "1", "--drain-timeout", "20"];

afterEach(() => killAll());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await sleep(100);
  }
}

interface StartedRun {
  threadId: string;
  runId: string;
  text: string;
}

/** `count` background runs of `steps` (resumable streams), each on its own thread with its own message. */
async function startRuns(client: Client, count: number, label: string): Promise<StartedRun[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const text = `${label} ${i}`;
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "steps", {
        input: { messages: [{ role: "user", content: text }], stepMs: STEP_MS },
        streamMode: ["values"],
        streamResumable: true,
      });
      return { threadId: thread.thread_id, runId: run.run_id, text };
    }),
  );
}

/** A2A tasks on `steps` sent with returnImmediately: they are WORKING when this returns. */
async function startTasks(a2a: A2AClient, count: number): Promise<Array<{ id: string; text: string }>> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const text = `task ${i}`;
      const sent = await a2a.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }, { data: { stepMs: STEP_MS } }] },
          configuration: { returnImmediately: true },
        }),
      );
      if (!("status" in sent)) throw new Error(`expected a task, got ${JSON.stringify(sent)}`);
      return { id: sent.id, text };
    }),
  );
}

/** The run finished with its own answer, each step once (none ran again after the hand-back), as attempt `attempt`. */
async function expectFinished(client: Client, run: StartedRun, attempt: number): Promise<void> {
  expect(await client.runs.join(run.threadId, run.runId)).toBeDefined();
  const row = await client.runs.get(run.threadId, run.runId);
  expect(row.status).toBe("success");
  const state = await client.threads.getState<{ steps: string[]; messages: Array<{ content: string }> }>(run.threadId);
  expect(state.values.steps).toEqual(STEPS);
  expect(state.values.messages.at(-1)?.content).toBe(`done: ${run.text}`);
  expect(state.metadata?.run_attempt).toBe(attempt);
  if (attempt > 1) expect(row.metadata?.run_attempt).toBe(attempt);
}

/** /ready answers 503 and /ok 200 while the process drains. */
async function expectDraining(url: string): Promise<void> {
  const ready = await fetch(`${url}/ready`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ ready: false, draining: true, services: { database: "ok" } });
  expect((await fetch(`${url}/ok`)).status).toBe(200);
}

describe("rolling restart on SQLite: SIGTERM, then the same server started again on the same file", () => {
  it("every run succeeds with its own answer as attempt 2 and every A2A task completes with its artifact; no finished step runs again", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agent-server-rolling-"));
    const args = ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--workers", "8"];
    try {
      const first = await startCli([...args, ...DRAIN_FLAGS]);
      expect((await fetch(`${first.url}/ready`)).status).toBe(200);
      const client = new Client({ apiUrl: first.url });
      const runs = await startRuns(client, 6, "run");
      const tasks = await startTasks(await new ClientFactory().createFromUrl(`${first.url}/a2a/steps/`), 2);
      await until(async () =>
        (await Promise.all(runs.map((r) => client.runs.get(r.threadId, r.runId)))).every((r) => r.status === "running"),
      );

      first.child.kill("SIGTERM");
      await first.waitFor(/"msg":"SIGTERM received/);
      await expectDraining(first.url);
      // Reads go on during the drain.
      expect((await client.runs.get(runs[0]!.threadId, runs[0]!.runId)).status).toBe("running");
      expect(await first.exited).toBe(0);
      expect(handedBack(first)).toBe(8);

      const second = await startCli(args);
      const again = new Client({ apiUrl: second.url });
      const a2a = await new ClientFactory().createFromUrl(`${second.url}/a2a/steps/`);
      for (const run of runs) await expectFinished(again, run, 2);
      for (const task of tasks) await expectCompleted(a2a, task);
      // A client following the first run's stream reconnects to the new process with the last id it saw.
      const [run] = runs;
      const all = await replay(second.url, run!, "-1");
      expect(all.filter((e) => e.event === "metadata").map((e) => (e.data as { attempt: number }).attempt)).toEqual([1, 2]);
      const handBack = all.findIndex((e, i) => i > 0 && e.event === "metadata");
      const rest = await replay(second.url, run!, all[handBack - 1]!.id);
      expect(rest).toEqual(all.slice(handBack));
      expect(rest.at(-1)?.data).toMatchObject({ steps: STEPS });
    } finally {
      await killAll();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("rolling restart on PostgreSQL: two processes, SIGTERM one", () => {
  it("the other process finishes the runs handed back within 15 s, from their checkpoints", async () => {
    const schema = await createTestSchema("rolling");
    const storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
    try {
      const servers = await startServeProcesses({
        config: PROJECT,
        databaseUrl: schema.url,
        databaseSchema: schema.schema,
        count: 2,
        workers: 8,
        extraArgs: DRAIN_FLAGS,
      });
      const [front] = servers;
      const client = new Client({ apiUrl: front!.url });
      const runs = await startRuns(client, 6, "pg run");
      const tasks = await startTasks(await new ClientFactory().createFromUrl(`${front!.url}/a2a/steps/`), 2);
      await until(async () =>
        (await Promise.all(runs.map((r) => client.runs.get(r.threadId, r.runId)))).every((r) => r.status === "running"),
      );
      // SIGTERM the process executing the first run; the other one serves the clients from here on.
      const leaving = await executorOf(storage, servers, runs[0]!.runId);
      const staying = servers.find((s) => s !== leaving)!;
      const leases = await storage.runs.listLeases(100);
      const onLeaving: Set<string> = new Set(
        leases.filter((l) => l.owner.split(":").at(-2) === String(leaving.child.pid)).map((l) => l.run.run_id),
      );

      expect(onLeaving.has(runs[0]!.runId)).toBe(true);
      // A client follows a task through the process that stays, from before the SIGTERM to the task's end.
      const followed = followTask(await new ClientFactory().createFromUrl(`${staying.url}/a2a/steps/`), tasks[0]!.id);
      const signalled = Date.now();
      leaving.child.kill("SIGTERM");
      await leaving.waitFor(/"msg":"SIGTERM received/);
      await expectDraining(leaving.url);
      expect(await leaving.exited).toBe(0);
      expect(handedBack(leaving)).toBe(onLeaving.size);

      const other = new Client({ apiUrl: staying.url });
      const a2a = await new ClientFactory().createFromUrl(`${staying.url}/a2a/steps/`);
      await until(async () => {
        const rows = await Promise.all(runs.map((r) => other.runs.get(r.threadId, r.runId)));
        return rows.every((r) => r.status === "success");
      }, 15_000);
      const tookMs = Date.now() - signalled;
      expect(tookMs).toBeLessThan(15_000);
      console.info(
        `rolling restart: ${onLeaving.size} of ${runs.length + tasks.length} runs (6 runs, 2 A2A tasks) handed back; the 6 runs done ${tookMs} ms after SIGTERM`,
      );
      for (const run of runs) await expectFinished(other, run, onLeaving.has(run.runId) ? 2 : 1);
      for (const task of tasks) await expectCompleted(a2a, task);
      const states = await followed;
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(states).not.toContain(TaskState.TASK_STATE_CANCELED);
    } finally {
      await killAll();
      await storage.close();
      await schema.drop();
    }
  });
});

interface SseEvent {
  id: string;
  event: string;
  data: unknown;
}

/** The run's stored events after `lastEventId`, as a reconnecting client gets them (the run has ended). */
async function replay(url: string, run: StartedRun, lastEventId: string): Promise<SseEvent[]> {
  const response = await fetch(`${url}/threads/${run.threadId}/runs/${run.runId}/stream`, { headers: { "Last-Event-ID": lastEventId } });
  expect(response.status).toBe(200);
  return (await response.text())
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => {
      const field = (name: string) =>
        block
          .split("\n")
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim() ?? "";
      return { id: field("id"), event: field("event"), data: JSON.parse(field("data")) as unknown };
    });
}

/** SubscribeToTask until the stream ends: the task states it reported, in order. */
async function followTask(a2a: A2AClient, id: string): Promise<TaskState[]> {
  const states: TaskState[] = [];
  for await (const event of a2a.resubscribeTask({ tenant: "", id })) {
    const payload = event.payload;
    if (payload?.$case === "task") states.push(payload.value.status!.state);
    if (payload?.$case === "statusUpdate") states.push(payload.value.status!.state);
  }
  return states;
}

function handedBack(server: CliRun): number {
  return [...server.stdout().matchAll(/"msg":"run handed back after attempt 1 \(drained\)"/g)].length;
}

async function expectCompleted(a2a: A2AClient, task: { id: string; text: string }): Promise<void> {
  let current: Task;
  const deadline = Date.now() + 30_000;
  for (;;) {
    current = await a2a.getTask({ tenant: "", id: task.id });
    if (current.status?.state === TaskState.TASK_STATE_COMPLETED || Date.now() > deadline) break;
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_SUBMITTED]).toContain(current.status?.state);
    await sleep(200);
  }
  expect(current.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const texts = current.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
  expect(texts).toContain(`done: ${task.text}`);
}
