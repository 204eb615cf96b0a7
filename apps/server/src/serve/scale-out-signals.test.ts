import { fileURLToPath } from "node:url";
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { openPostgresStorage, type PostgresStorage } from "@agent-server/storage-postgres";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../../test/support/cli-process.js";
import { executorOf as executorOfRun, startServeProcesses, type ServeProcess } from "../../test/support/serve-processes.js";

const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-scale-out.json", import.meta.url));
/**
 * The fallback poll of every process: ten minutes, far beyond any test here. Whatever happens across
 * processes within a test (a run claimed by an idle worker, a stream or a waiter told of a run's end)
 * came through a PostgreSQL signal, not a poll.
 */
const POLL_MS = "600000";
/** The lease renewal interval (leaseMs / 3 at the default 30 s lease): a cancel found by renewal takes this long. */
const RENEWAL_MS = 10_000;

type Server = ServeProcess;

let schema: TestSchema;
let storage: PostgresStorage;
let servers: Server[];

beforeAll(async () => {
  schema = await createTestSchema("scale_out");
  servers = await startServeProcesses({
    config: PROJECT,
    databaseUrl: schema.url,
    databaseSchema: schema.schema,
    count: 3,
    workers: 1,
    extraArgs: ["--poll-interval", POLL_MS],
  });
  storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
}, 120_000);

afterAll(async () => {
  await killAll();
  await storage?.close();
  await schema?.drop();
});

/** The server whose process holds the run's lease (it executes the run), once the run is running. */
function executorOf(runId: string): Promise<Server> {
  return executorOfRun(storage, servers, runId);
}

function others(server: Server): Server[] {
  return servers.filter((s) => s !== server);
}

/** Fails when `promise` takes longer than the lease renewal would: the signal did not get there. */
function beforeRenewal<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not before the lease renewal`)), RENEWAL_MS * 0.6)),
  ]);
}

describe("three agent-server processes over one PostgreSQL: live signals", () => {
  it("a run created through A streams live, in order and to its end, through a process that does not execute it", async () => {
    const [a] = servers;
    const thread = await a!.client.threads.create();
    const run = await a!.client.runs.create(thread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: "hi" }], stepMs: 400 },
      streamMode: ["values"],
    });
    const executor = await executorOf(run.run_id);
    const viewer = others(executor)[0]!;
    const events: { event: string; data: unknown; id?: string }[] = [];
    for await (const chunk of viewer.client.runs.joinStream(thread.thread_id, run.run_id)) events.push(chunk);

    const values = events.filter((e) => e.event === "values").map((e) => (e.data as { steps?: string[] }).steps ?? []);
    expect(values.length).toBeGreaterThan(1);
    // In order: each values event has at least the steps of the one before.
    for (let i = 1; i < values.length; i++) expect(values[i]!.slice(0, values[i - 1]!.length)).toEqual(values[i - 1]);
    // To the end: the last one is the final state, and the stream closed once the run had ended.
    expect(values.at(-1)).toEqual(["plan", "work", "check", "reply"]);
    expect((await viewer.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("runs.stream through a busy process gets every values chunk from the process that executes the run", async () => {
    const [a] = servers;
    // Keeps one process's only worker busy, so a run streamed through that process executes elsewhere.
    const busyThread = await a!.client.threads.create();
    const busy = await a!.client.runs.create(busyThread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: "busy" }], stepMs: 1_500 },
    });
    const streamer = await executorOf(busy.run_id);
    const thread = await streamer.client.threads.create();
    const values: string[][] = [];
    let runId: string | undefined;
    for await (const chunk of streamer.client.runs.stream(thread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: "streamed" }], stepMs: 50 },
      streamMode: ["values"],
    })) {
      if (chunk.event === "metadata") runId = (chunk.data as { run_id: string }).run_id;
      if (chunk.event === "values") values.push((chunk.data as { steps?: string[] }).steps ?? []);
    }
    // The executor's follow was known before it published: every step arrived, in order, to the end.
    expect(values.at(-1)).toEqual(["plan", "work", "check", "reply"]);
    expect(values.length).toBeGreaterThanOrEqual(4);
    const executed = (await storage.runs.get(runId!))!;
    expect(executed.status).toBe("success");
    expect((await streamer.client.runs.get(busyThread.thread_id, busy.run_id)).status).toBe("running");
    await streamer.client.runs.join(busyThread.thread_id, busy.run_id);
  });

  it("a waiter on another process (runs.join) gets the run's end and values", async () => {
    const [a] = servers;
    const thread = await a!.client.threads.create();
    const run = await a!.client.runs.create(thread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: "join" }], stepMs: 100 },
    });
    const executor = await executorOf(run.run_id);
    const values = (await others(executor)[1]!.client.runs.join(thread.thread_id, run.run_id)) as { steps: string[] };
    expect(values.steps).toEqual(["plan", "work", "check", "reply"]);
  });

  it("a cancel through another process stops the run on its executor at once", async () => {
    const [a] = servers;
    const thread = await a!.client.threads.create();
    const run = await a!.client.runs.create(thread.thread_id, "slow", { input: { ms: 120_000 } });
    const executor = await executorOf(run.run_id);
    const canceller = others(executor)[0]!;
    await canceller.client.runs.cancel(thread.thread_id, run.run_id, false, "interrupt");
    // The executor settles it (thread back to idle), which it does only once its execution has stopped.
    await beforeRenewal(
      (async () => {
        while ((await canceller.client.threads.get(thread.thread_id)).status !== "idle") await new Promise((r) => setTimeout(r, 50));
      })(),
      "the cancelled run's thread went idle",
    );
    expect((await canceller.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  });

  it("a rollback through another process erases the run (not left interrupted)", async () => {
    const [a] = servers;
    const thread = await a!.client.threads.create();
    const run = await a!.client.runs.create(thread.thread_id, "slow", { input: { ms: 120_000 } });
    const executor = await executorOf(run.run_id);
    const canceller = others(executor)[1]!;
    await canceller.client.runs.cancel(thread.thread_id, run.run_id, true, "rollback");
    await expect(canceller.client.runs.get(thread.thread_id, run.run_id)).rejects.toMatchObject({ status: 404 });
    expect((await canceller.client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("SubscribeToTask through another process follows the task to COMPLETED", async () => {
    const [a, b] = servers;
    const sender = await new ClientFactory().createFromUrl(`${a!.url}/a2a/steps/`);
    const task = (await sender.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "subscribe" }] },
        configuration: { returnImmediately: true },
      }),
    )) as Task;
    const follower = await new ClientFactory().createFromUrl(`${b!.url}/a2a/steps/`);
    const followed: StreamResponse[] = [];
    for await (const event of follower.resubscribeTask({ tenant: "", id: task.id })) followed.push(event);
    const end = followed.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(end.value.taskId).toBe(task.id);
    expect(end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a run admitted on a busy process wakes the idle worker of another (no poll within the test)", async () => {
    const [a] = servers;
    // Two long runs: the two processes that claim them have no worker left.
    const busy = [];
    for (let i = 0; i < 2; i++) {
      const thread = await a!.client.threads.create();
      const run = await a!.client.runs.create(thread.thread_id, "slow", { input: { ms: 120_000 } });
      busy.push({ thread: thread.thread_id, run: run.run_id, executor: await executorOf(run.run_id) });
    }
    const busyServers = new Set(busy.map((b) => b.executor));
    expect(busyServers.size).toBe(2);
    const idle = servers.find((s) => !busyServers.has(s))!;
    const admitting = busy[0]!.executor;
    try {
      const thread = await admitting.client.threads.create();
      const run = await admitting.client.runs.create(thread.thread_id, "steps", {
        input: { messages: [{ role: "user", content: "wake" }], stepMs: 10 },
      });
      expect(await executorOf(run.run_id)).toBe(idle);
      const values = (await admitting.client.runs.join(thread.thread_id, run.run_id)) as { steps: string[] };
      expect(values.steps).toHaveLength(4);
    } finally {
      for (const { thread, run } of busy) await a!.client.runs.cancel(thread, run, true, "interrupt");
    }
  });
});
