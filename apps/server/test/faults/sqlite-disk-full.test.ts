import { join } from "node:path";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, killAll, startCli, type CliRun } from "../support/cli-process.js";
import { Tmpfs } from "./tmpfs.js";

/** Small, so that a few dozen large messages fill it; the room given back afterwards. */
const DISK_MB = 16;
const ROOMY_MB = 64;
/** Each message is stored several times over (run input, A2A message, checkpoints, result): the disk fills in seconds. */
const MESSAGE_BYTES = 256 * 1024;
/** What a client must be told when the disk is full (core's storageFault detail for SQLITE_FULL). */
const DISK_FULL = /Storage unavailable: SQLite is out of disk space \(SQLITE_FULL\)/;

let disk: Tmpfs;
beforeAll(() => {
  disk = Tmpfs.mount("agent-server-disk-full-", DISK_MB);
});
afterAll(async () => {
  await killAll();
  disk?.unmount();
});

/** One call's outcome: acknowledged (with what to read back), or refused with what the client was told. */
type Outcome =
  | { via: "a2a"; acknowledged: true; taskId: string; sent: string; reply: string }
  | { via: "sdk"; acknowledged: true }
  | { via: "a2a" | "sdk"; acknowledged: false; status?: number; message: string }
  /** A blocking send answered with the task still at work: the disk refused its run's writes, the run is kept. */
  | { via: "a2a"; acknowledged: false; kept: true; taskId: string; sent: string; status?: undefined; message: string }
  /**
   * A wait whose run met the full disk after the wait's 200 had begun (keep-alives after a second): the
   * body's error names the fault and the kept run (`RunStalledError`).
   */
  | { via: "sdk"; acknowledged: false; kept: true; runId: string; status?: undefined; message: string };

function text(n: number, bytes = MESSAGE_BYTES): string {
  return `message ${n} `.padEnd(bytes, `${n % 10}abcdefghij`);
}

function say(message: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: message }] } });
}

function artifactText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))).join("");
}

async function sendA2A(a2a: A2AClient, message: string): Promise<Outcome> {
  try {
    const task = (await a2a.sendMessage(say(message))) as Task;
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
      return { via: "a2a", acknowledged: true, taskId: task.id, sent: message, reply: artifactText(task) };
    }
    const state = TaskState[task.status?.state ?? 0];
    if (task.status?.state === TaskState.TASK_STATE_WORKING || task.status?.state === TaskState.TASK_STATE_SUBMITTED) {
      return { via: "a2a", acknowledged: false, kept: true, taskId: task.id, sent: message, message: `task ${task.id} ${state}` };
    }
    const why = task.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
    return { via: "a2a", acknowledged: false, message: `task ${task.id} ${state}: ${why}` };
  } catch (error) {
    const e = error as { envelopeCode?: number; message: string };
    return { via: "a2a", acknowledged: false, status: e.envelopeCode, message: e.message };
  }
}

async function waitSdk(sdk: Client, message: string): Promise<Outcome> {
  try {
    const values = (await sdk.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: message }] } })) as {
      messages?: { content: string }[];
    };
    if (values.messages?.at(-1)?.content === `echo: ${message}`) return { via: "sdk", acknowledged: true };
    return { via: "sdk", acknowledged: false, message: `unexpected values ${JSON.stringify(values).slice(0, 300)}` };
  } catch (error) {
    const e = error as { status?: number; message: string };
    const kept = /run ([0-9a-f-]{36}) is kept and resumes once it takes writes again/.exec(e.message);
    if (e.status === undefined && kept && DISK_FULL.test(e.message)) {
      return { via: "sdk", acknowledged: false, kept: true, runId: kept[1]!, message: e.message };
    }
    return { via: "sdk", acknowledged: false, status: e.status, message: e.message };
  }
}

/** A2A's JSON-RPC error message is the detail (not "Internal error" alone); the SDK's HTTPError carries the 507 body. */
function expectDiskFullRefusal(refusal: Outcome): void {
  if ("kept" in refusal) return; // a task kept at work: it must complete once there is room (checked then)
  if (refusal.via === "a2a") expect(refusal).toMatchObject({ status: -32603, message: expect.stringMatching(DISK_FULL) });
  else expect(refusal).toMatchObject({ status: 507, message: expect.stringMatching(DISK_FULL) });
}

/** The ids of threads that have no run, polled through the API until there are none or `timeoutMs` passed. */
async function threadsWithoutRunsAfter(sdk: Client, timeoutMs: number): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const threads = await sdk.threads.search({ limit: 1000 });
    // A thread deleted between the search and its list (the retried delete landing) is no orphan.
    const gone = (error: { status?: number }) => (error.status === 404 ? undefined : Promise.reject(error));
    const runs = await Promise.all(threads.map((thread) => sdk.runs.list(thread.thread_id, { limit: 1 }).catch(gone)));
    const orphans = threads.filter((_, i) => runs[i]?.length === 0).map((thread) => thread.thread_id);
    if (orphans.length === 0 || Date.now() > until) return orphans;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stop(server: CliRun): Promise<number> {
  server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 15_000);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

describe("SQLite on a filling disk (a real serve process on a 16 MiB tmpfs)", () => {
  it("refuses with 507 and a detail naming the full disk, keeps every acknowledged task, and recovers once there is room", async () => {
    const server = await startCli(["serve", "--config", EXAMPLE_CONFIG, "--port", "0", "--data-dir", disk.dir, "--log-format", "json"]);
    const a2a = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
    const sdk = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });

    // Fill the disk: three calls at a time (two A2A sends for each stateless SDK run), each started as
    // another ends, until both protocols have refused a few. A call whose run met the full disk after it
    // was admitted waits for room (the run goes back to the queue): it stays in flight meanwhile.
    const outcomes: Outcome[] = [];
    const inFlight = new Set<Promise<void>>();
    const refused = (via: Outcome["via"]) => outcomes.filter((o) => o.via === via && !o.acknowledged).length;
    const fillUntil = Date.now() + 20_000;
    for (let n = 0; (refused("a2a") < 4 || refused("sdk") < 4) && Date.now() < fillUntil;) {
      while (inFlight.size < 3) {
        const call = n % 3 === 2 ? waitSdk(sdk, text(n)) : sendA2A(a2a, text(n));
        n += 1;
        const tracked: Promise<void> = call.then((outcome) => void outcomes.push(outcome)).finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
      }
      await Promise.race([...inFlight, new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    const waitingForRoom = inFlight.size;
    const whileFull = [...outcomes];
    const acknowledged = whileFull.filter((o) => o.acknowledged);
    const refusals = whileFull.filter((o) => !o.acknowledged);
    const tasks = whileFull.flatMap((o) => (o.via === "a2a" && o.acknowledged ? [o] : []));
    console.log(
      `disk full: ${acknowledged.length} acknowledged (${tasks.length} A2A tasks), ${refusals.length} refused ` +
        `(${refused("a2a")} A2A, ${refused("sdk")} SDK), ${disk.usedBytes()} bytes used; refusals: ` +
        JSON.stringify([...new Set(refusals.map((r) => `${r.via} ${r.status}: ${r.message.slice(0, 160)}`))]),
    );
    expect(refused("a2a")).toBeGreaterThanOrEqual(4);
    expect(refused("sdk")).toBeGreaterThanOrEqual(4);
    expect(tasks.length).toBeGreaterThan(0);
    // Every refusal says the disk is full; never a 404 for a thread that was never written.
    for (const refusal of refusals) expectDiskFullRefusal(refusal);
    for (const task of tasks) expect(task.reply).toBe(`echo: ${task.sent}`);
    // A task once COMPLETED is still there, its artifact the reply, while the disk is full.
    for (const task of tasks) {
      const read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
      expect({ id: read.id, state: TaskState[read.status!.state], artifact: artifactText(read) }).toEqual({
        id: task.taskId,
        state: "TASK_STATE_COMPLETED",
        artifact: task.reply,
      });
    }

    // Room again: sends succeed within 10 s, without a restart.
    disk.resize(ROOMY_MB);
    const resized = Date.now();
    // The calls that were waiting end too: answered, or refused as full like the others.
    await Promise.race([Promise.all([...inFlight]), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    expect(inFlight.size).toBe(0);
    const late = outcomes.slice(whileFull.length);
    for (const outcome of late) if (!outcome.acknowledged) expectDiskFullRefusal(outcome);
    let recovered: Outcome | undefined;
    while (Date.now() - resized < 10_000) {
      recovered = await sendA2A(a2a, text(-1, 1024));
      if (recovered.acknowledged) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const recoveryMs = Date.now() - resized;
    console.log(
      `disk full: recovered in ${recoveryMs} ms; ${waitingForRoom} calls waited for room, then acknowledged: ` +
        JSON.stringify(late.map((o) => o.acknowledged)),
    );
    expect(recovered).toMatchObject({ acknowledged: true });
    // A task answered while still at work (its run kept through the full disk) completes with its own reply.
    const kept = outcomes.flatMap((o) => ("kept" in o && o.via === "a2a" ? [o] : []));
    for (const task of kept) {
      let read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
      for (const until = Date.now() + 10_000; read.status?.state !== TaskState.TASK_STATE_COMPLETED && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
      }
      expect({ state: TaskState[read.status!.state], artifact: artifactText(read) }).toEqual({
        state: "TASK_STATE_COMPLETED",
        artifact: `echo: ${task.sent}`,
      });
    }
    console.log(`disk full: ${kept.length} blocking sends answered with their task still at work, completed after recovery`);
    expect(await waitSdk(sdk, "after the disk had room")).toEqual({ via: "sdk", acknowledged: true });

    // A thread made for a call the disk refused is gone too, once there is room (its delete is retried).
    expect(await threadsWithoutRunsAfter(sdk, 5_000)).toEqual([]);

    // A clean stop; the file is sound, every acknowledged task keeps its result, no thread lost its run.
    expect(await stop(server)).toBe(0);
    const storage = await openSqliteStorage({ path: join(disk.dir, "agent-server.sqlite") });
    try {
      expect(storage.db.pragma("integrity_check", { simple: true })).toBe("ok");
      for (const task of outcomes.flatMap((o) => (o.via === "a2a" && o.acknowledged ? [o] : []))) {
        const result = await storage.runs.getResult!(task.taskId);
        expect(JSON.stringify(result?.values)).toContain(task.reply);
      }
      const threadsWithoutRuns = storage.db
        .prepare("SELECT thread_id, metadata FROM threads t WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.thread_id)")
        .all();
      expect(threadsWithoutRuns).toEqual([]);
      // A stateless run whose wait was told it is kept has ended well: gone with its temporary thread, or success.
      for (const outcome of outcomes) {
        if (!("kept" in outcome) || outcome.via !== "sdk") continue;
        const row = storage.db.prepare("SELECT status FROM runs WHERE run_id = ?").get(outcome.runId) as { status: string } | undefined;
        expect(row?.status ?? "deleted with its thread").toMatch(/^(success|deleted with its thread)$/);
      }
      const statuses = storage.db.prepare("SELECT status, count(*) AS n FROM runs GROUP BY status").all();
      console.log(`disk full: runs after recovery ${JSON.stringify(statuses)}`);
    } finally {
      await storage.close();
    }
  });
});
