import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, jsonLines, killAll, startCli, type CliRun } from "../support/cli-process.js";
import { query, startPostgresOnTmpfs, type PostgresOnTmpfs } from "./postgres-disk.js";

/** Room for initdb, start-up and the server's migrations; then shrunk to what is used plus HEADROOM_MB. */
const DISK_MB = 160;
const HEADROOM_MB = 12;
const ROOMY_MB = 512;
/** Random text (base64 of random bytes), so that TOAST's compression cannot make it small. */
const MESSAGE_BYTES = 256 * 1024;
/** What a client must be told: the full disk (53100), or, while PostgreSQL is down, that it cannot be reached. */
const STORAGE_FAULT =
  /Storage unavailable: (PostgreSQL is out of disk space \(53100\)|(PostgreSQL|the database) cannot be reached \([^)]+\))/;
/** Past the server's own bound: a run kept through an outage is answered at most 10 s after its fault. */
const CALL_TIMEOUT_MS = 20_000;

let postgres: PostgresOnTmpfs | undefined;
let server: (CliRun & { url: string }) | undefined;
afterEach(async () => {
  if (process.env.PG_DISK_DUMP)
    writeFileSync(process.env.PG_DISK_DUMP, `${server?.stdout()}\n--stderr--\n${server?.stderr()}\n--pg--\n${postgres?.log()}`);
  await killAll();
  await postgres?.destroy();
});

type Outcome =
  | { via: "a2a"; acknowledged: true; taskId: string; reply: string; expected: string }
  | { via: "sdk"; acknowledged: true }
  | { via: "a2a" | "sdk"; acknowledged: false; status?: number; message: string; at: number }
  /** A blocking send answered with the task still at work: the disk refused its run's writes, the run is kept. */
  | { via: "a2a"; acknowledged: false; kept: true; taskId: string; expected: string; status?: undefined; message: string; at: number };

function text(n: number, bytes = MESSAGE_BYTES): string {
  return `message ${n} ${randomBytes(Math.ceil((bytes * 3) / 4)).toString("base64")}`.slice(0, bytes);
}

function say(message: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: message }] } });
}

function artifactText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))).join("");
}

async function sendA2A(a2a: A2AClient, message: string): Promise<Outcome> {
  try {
    const task = (await a2a.sendMessage(say(message), { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })) as Task;
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
      return { via: "a2a", acknowledged: true, taskId: task.id, reply: artifactText(task), expected: `echo: ${message}` };
    }
    const state = TaskState[task.status?.state ?? 0];
    if (task.status?.state === TaskState.TASK_STATE_WORKING || task.status?.state === TaskState.TASK_STATE_SUBMITTED) {
      return {
        via: "a2a",
        acknowledged: false,
        kept: true,
        taskId: task.id,
        expected: `echo: ${message}`,
        message: `task ${task.id} ${state}`,
        at: Date.now(),
      };
    }
    const why = task.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
    return { via: "a2a", acknowledged: false, message: `task ${task.id} ${state}: ${why}`, at: Date.now() };
  } catch (error) {
    // A JSON-RPC error (envelopeCode), or the transport's error for a non-JSON-RPC HTTP answer
    // ("HTTP error for SendMessage! Status: 503 ... Response: <body>").
    const e = error as { envelopeCode?: number; message: string };
    const message = String(e.message);
    const status = e.envelopeCode ?? Number(/Status: (\d{3})/.exec(message)?.[1] ?? NaN);
    return { via: "a2a", acknowledged: false, status: Number.isNaN(status) ? undefined : status, message, at: Date.now() };
  }
}

async function waitSdk(sdk: Client, message: string): Promise<Outcome> {
  try {
    const values = (await sdk.runs.wait(null, "echo", {
      input: { messages: [{ role: "user", content: message }] },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })) as { messages?: { content: string }[] };
    if (values.messages?.at(-1)?.content === `echo: ${message}`) return { via: "sdk", acknowledged: true };
    return { via: "sdk", acknowledged: false, message: `unexpected values ${JSON.stringify(values).slice(0, 300)}`, at: Date.now() };
  } catch (error) {
    // A 503 reaches the caller wrapped ("Unable to connect to LangGraph server ... HTTP 503: <body>").
    const e = error as { status?: number; message: string; text?: string; cause?: { status?: number; text?: string } };
    const message = `${String(e.message)} ${e.text ?? e.cause?.text ?? ""}`;
    const status = e.status ?? e.cause?.status ?? Number(/HTTP (\d{3}):/.exec(message)?.[1] ?? NaN);
    return { via: "sdk", acknowledged: false, status: Number.isNaN(status) ? undefined : status, message, at: Date.now() };
  }
}

/** The JSON `detail` of a refused call (the SDK's HTTPError message ends with the body). */
function sdkDetail(message: string): string | undefined {
  const body = /\{"detail":"(?:[^"\\]|\\.)*"\}/.exec(message)?.[0];
  return body === undefined ? undefined : (JSON.parse(body) as { detail: string }).detail;
}

/**
 * Issue 39, PostgreSQL out of disk: a real `agent-server serve` over a PostgreSQL of its own whose data
 * directory is on a small tmpfs. Fills the disk with A2A SendMessage and SDK runs.wait calls (large random
 * text), checks every answer (a refusal is 507/503 or a JSON-RPC error whose message names the storage;
 * no 404, no bare 500, no call left without an answer), gives room back (`mount -o remount,size=`), and
 * measures how soon sends are acknowledged again; every task once COMPLETED reads back with its artifact,
 * and every run admitted meanwhile ends in success. PG_DISK_DUMP=<file> writes both processes' logs there.
 */
async function fillAndRecover(walOnTmpfs: boolean): Promise<void> {
  postgres = await startPostgresOnTmpfs(DISK_MB, { walOnTmpfs });
  const label = walOnTmpfs ? "pg disk full (WAL on it too)" : "pg disk full";
  const pg = postgres;
  server = await startCli([
    ...["serve", "--config", EXAMPLE_CONFIG, "--host", "127.0.0.1", "--port", "0", "--workers", "4", "--log-format", "json"],
    ...["--storage", "postgres", "--database-url", pg.url, "--database-schema", "public"],
  ]);
  const exits: number[] = [];
  void server.exited.then((code) => exits.push(code));
  const a2a = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
  const sdk = new Client({ apiUrl: server.url, apiKey: null, callerOptions: { maxRetries: 0 } });
  // One of each before the disk is made small: the server works.
  expect(await sendA2A(a2a, text(-2, 1024))).toMatchObject({ acknowledged: true });
  expect(await waitSdk(sdk, text(-3, 1024))).toEqual({ via: "sdk", acknowledged: true });

  const usedMb = Math.ceil(pg.usedBytes() / 2 ** 20);
  pg.resize(usedMb + HEADROOM_MB);
  console.log(`${label}: ${usedMb} MB used after start-up, disk shrunk to ${usedMb + HEADROOM_MB} MB`);

  // Fill the disk: two A2A sends and one SDK runs.wait at a time, until both protocols have refused a few.
  const outcomes: Outcome[] = [];
  const refused = (via: Outcome["via"]) => outcomes.filter((o) => o.via === via && !o.acknowledged).length;
  const started = Date.now();
  let n = 0;
  const batches: string[] = [];
  for (; (refused("a2a") < 4 || refused("sdk") < 4) && Date.now() - started < 30_000; n += 3) {
    const batchStart = Date.now();
    const batch = await Promise.all([sendA2A(a2a, text(n)), sendA2A(a2a, text(n + 1)), waitSdk(sdk, text(n + 2))]);
    batches.push(
      `${batchStart - started}+${Date.now() - batchStart}ms ${batch.map((o) => (o.acknowledged ? "ok" : (o.status ?? "none"))).join(",")}`,
    );
    outcomes.push(...batch);
  }
  console.log(`${label}: batches ${JSON.stringify(batches)}`);
  const fillMs = Date.now() - started;
  const acknowledged = outcomes.filter((o) => o.acknowledged);
  const refusals = outcomes.flatMap((o) => (o.acknowledged ? [] : [o]));
  const tasks = outcomes.flatMap((o) => (o.via === "a2a" && o.acknowledged ? [o] : []));
  const byStatus: Record<string, number> = {};
  for (const r of refusals) byStatus[`${r.via} ${r.status ?? "none"}`] = (byStatus[`${r.via} ${r.status ?? "none"}`] ?? 0) + 1;
  const pgLog = pg.log();
  const panics = pgLog.match(/PANIC:[^\n]*/g) ?? [];
  const diskErrors = pgLog.match(/ERROR:[^\n]*No space left on device[^\n]*/g) ?? [];
  console.log(
    `${label}: ${outcomes.length} calls in ${fillMs} ms, ${acknowledged.length} acknowledged (${tasks.length} A2A tasks), ` +
      `${refusals.length} refused ${JSON.stringify(byStatus)}, ${pg.usedBytes()} bytes used; ` +
      `postgres log: ${diskErrors.length} ENOSPC errors ${JSON.stringify([...new Set(diskErrors.map((l) => l.slice(0, 160)))].slice(0, 4))}, ` +
      `${panics.length} PANICs ${JSON.stringify([...new Set(panics.map((l) => l.slice(0, 160)))].slice(0, 4))}`,
  );
  console.log(
    `${label}: refusals ${JSON.stringify([...new Set(refusals.map((r) => `${r.via} ${r.status}: ${r.message.slice(0, 200)}`))])}`,
  );
  const serverLog = jsonLines(server.stdout()).filter((l) => l.level === "error" || l.level === "warn" || l.level === 50 || l.level === 40);
  console.log(
    `${label}: server warn/error lines ${serverLog.length}; distinct ${JSON.stringify([...new Set(serverLog.map((l) => String(l.msg)))])}`,
  );

  // It filled up, and PostgreSQL said so (53100 "could not extend file", or a PANIC writing WAL).
  expect(diskErrors.length + panics.length).toBeGreaterThan(0);
  expect(refused("a2a")).toBeGreaterThanOrEqual(4);
  expect(refused("sdk")).toBeGreaterThanOrEqual(4);
  if (!walOnTmpfs) {
    // With the WAL elsewhere PostgreSQL stays up and says 53100: the clients are told the disk is full.
    const diskFull = /Storage unavailable: PostgreSQL is out of disk space \(53100\)/;
    expect(refusals.filter((r) => r.via === "a2a" && diskFull.test(r.message)).length).toBeGreaterThan(0);
    expect(refusals.filter((r) => r.via === "sdk" && r.status === 507 && diskFull.test(sdkDetail(r.message) ?? "")).length).toBeGreaterThan(
      0,
    );
  }
  expect(tasks.length).toBeGreaterThan(0);

  // What must hold is gathered as problems (one line each), so that a failure says everything at once
  // and the recovery is measured even when the filling went wrong.
  const problems: string[] = [];
  // Every refusal names the storage: A2A's JSON-RPC error message is the detail (never "Internal error"
  // alone), the SDK's HTTPError is a 507 (or 503 while PostgreSQL restarts) with a JSON detail; no 404,
  // no 500, no call left without an answer.
  const kept = refusals.flatMap((r) => ("kept" in r ? [r] : []));
  for (const refusal of refusals) {
    if ("kept" in refusal) continue; // checked once there is room again: it must complete with its reply
    const ok =
      refusal.via === "a2a" && refusal.status === -32603
        ? STORAGE_FAULT.test(refusal.message)
        : refusal.via === "sdk" && refusal.status === undefined
          ? // runs.wait's 200 with `__error__` (the answer was under way when the fault came): "<error>: <message>".
            /^StorageUnavailable: /.test(refusal.message) && STORAGE_FAULT.test(refusal.message)
          : (refusal.status === 503 || refusal.status === 507) && STORAGE_FAULT.test(sdkDetail(refusal.message) ?? "");
    if (!ok) problems.push(`${refusal.via} refused with ${refusal.status ?? "no status"}: ${refusal.message.slice(0, 200)}`);
  }

  // Room again: sends succeed within 15 s, without a restart of either process.
  pg.resize(ROOMY_MB);
  const resized = Date.now();
  // When WAL could not grow, PostgreSQL PANICked, and its crash recovery, unable to write WAL either,
  // shut the server down: it stays down once there is room, until someone starts it (as an operator would).
  const postgresDown = !pg.running();
  if (postgresDown) await pg.restart();
  const restartMs = Date.now() - resized;
  console.log(`${label}: PostgreSQL ${postgresDown ? `had shut down; started again in ${restartMs} ms` : "stayed up"}`);
  let recovered: Outcome | undefined;
  const attempts: Outcome[] = [];
  while (Date.now() - resized < 15_000) {
    recovered = await sendA2A(a2a, text(-1, 1024));
    attempts.push(recovered);
    if (recovered.acknowledged) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const recoveryMs = Date.now() - resized;
  console.log(
    `${label}: recovered in ${recoveryMs} ms after ${attempts.length} attempts ` +
      `(${JSON.stringify(attempts.map((a) => (a.acknowledged ? "ok" : `${a.status}: ${a.message.slice(0, 120)}`)))})`,
  );
  if (!recovered?.acknowledged) problems.push(`no A2A send acknowledged within 15 s of room given back`);
  const sdkAfter = await waitSdk(sdk, "after the disk had room");
  if (!sdkAfter.acknowledged) problems.push(`SDK runs.wait after room given back: ${sdkAfter.message.slice(0, 200)}`);

  // Every task once COMPLETED reads back with its artifact (GetTask), after recovery.
  for (const task of tasks) {
    if (task.reply !== task.expected) problems.push(`task ${task.taskId} completed with a wrong artifact`);
    const read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
    const state = TaskState[read.status!.state];
    if (state !== "TASK_STATE_COMPLETED" || artifactText(read) !== task.expected) {
      problems.push(`task ${task.taskId} reads back ${state} with ${artifactText(read).length} characters of artifact`);
    }
  }

  // A task answered while still at work (its run kept through the full disk) completes with its own reply.
  for (const task of kept) {
    let read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
    for (const until = Date.now() + 15_000; read.status?.state !== TaskState.TASK_STATE_COMPLETED && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
    }
    if (read.status?.state !== TaskState.TASK_STATE_COMPLETED || artifactText(read) !== task.expected) {
      problems.push(
        `kept task ${task.taskId} reads back ${TaskState[read.status!.state]} with ${artifactText(read).length} characters of artifact`,
      );
    }
  }
  console.log(`${label}: ${kept.length} blocking sends answered with their task still at work, completed after recovery`);

  // Runs admitted while the disk filled (those of calls that got no answer) complete once there is room.
  const settleStart = Date.now();
  let statuses: { status: string; n: string }[];
  do {
    statuses = await query<{ status: string; n: string }>(pg.url, "SELECT status, count(*) AS n FROM runs GROUP BY status ORDER BY status");
    if (!statuses.some((s) => s.status === "pending" || s.status === "running")) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  } while (Date.now() - settleStart < 15_000);
  console.log(`${label}: runs ${Date.now() - settleStart} ms after recovery ${JSON.stringify(statuses)}`);
  for (const s of statuses) if (s.status !== "success") problems.push(`${s.n} runs still ${s.status} after recovery`);

  if (exits.length > 0 || server.child.exitCode !== null) problems.push(`the server exited (${exits.join()})`);
  console.log(`${label}: problems ${JSON.stringify(problems, null, 1)}`);
  expect(problems).toEqual([]);
}

describe("PostgreSQL on a filling disk (a real serve process over PostgreSQL on a tmpfs)", () => {
  it("tables on a full disk (WAL elsewhere): refuses with 507 and a detail naming the full disk, keeps every acknowledged task, recovers once there is room", async () => {
    await fillAndRecover(false);
  });

  it("WAL on the full disk too: whatever PostgreSQL does (53100, a PANIC, a shutdown), every refusal names the storage, and it recovers once there is room", async () => {
    await fillAndRecover(true);
  });
});
