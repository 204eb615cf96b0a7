import { randomBytes } from "node:crypto";
import type { RestartablePostgres } from "@agent-server/testing/postgres";
import type { Client } from "@langchain/langgraph-sdk";
import { jsonLines } from "../support/cli-process.js";
import { CRASH_LOOP_CONFIG } from "../support/crash-loop.js";
import { STEPS } from "../support/fixture-project/steps.js";
import { startServeProcesses, type ServeProcess } from "../support/serve-processes.js";
import { clientsFor, pause, replyTo, runLoad, type Answer, type LoadRecord, type ServerClients } from "./load.js";
import { readBack, watchHealth, type HealthSample } from "./observe.js";

/**
 * The PostgreSQL outage scenario of issue 39: two `agent-server serve` processes over one database, six
 * client loops (A2A SendMessage and SDK runs.wait) and four slow runs in flight, then the database taken
 * away for a while and given back. What must hold is returned as `problems` (one line each, empty when
 * all is well) beside the figures, so that a failing test says everything that went wrong at once.
 */

/** fast: `pg_ctl stop -m fast`; immediate: `-m immediate` (SIGQUIT, crash recovery); terminate: pg_terminate_backend on ours, repeatedly. */
export type OutageKind = "fast" | "immediate" | "terminate";

export interface OutageScenarioOptions {
  postgres: RestartablePostgres;
  outage: OutageKind;
  /** How long the database stays away (or, for terminate, how long its connections keep being cut). */
  outageMs: number;
  /** Recovery must be seen within this long after the database is back. */
  recoveryMs: number;
}

export interface OutageFigures {
  outage: OutageKind;
  /** From the first stop signal until the database accepted connections again. */
  outageMs: number;
  answers: number;
  duringOutage: { ok: number; refused: number; bad: number };
  /** Bad answers over the whole scenario (before, during, after). */
  bad: number;
  /** From the restart to the first acknowledged call of each kind started after it. */
  firstA2AOkAfterRestartMs: number | null;
  firstSdkOkAfterRestartMs: number | null;
  /** From the restart to `/ok?check_db=1` answering 200, the slower server. */
  checkDbOkAfterRestartMs: number | null;
  checkDb503DuringOutage: number;
  okNon200: number;
  /** Connections cut (terminate only). */
  backendsTerminated: number;
  inFlight: string[];
  /** "run started" with attempt >= 2, the highest attempt, and runs handed back or requeued, from the servers' logs. */
  runRestarts: number;
  maxAttempt: number;
  requeued: number;
  tasksAcked: number;
  runsAcked: number;
  serverExits: number;
  refusals: string[];
}

export interface OutageScenarioResult {
  figures: OutageFigures;
  problems: string[];
  /** What the servers wrote to stderr, and their warn/error JSON lines, distinct, with counts. */
  serverLog: string;
}

const LOOPS = 6;
const IN_FLIGHT = 4;
const LOAD_STEP_MS = 20;
const IN_FLIGHT_STEP_MS = 1500;
/** How long runs in flight and acknowledged tasks may take to end once the database is back. */
const SETTLE_MS = 60_000;

export async function runOutageScenario(options: OutageScenarioOptions): Promise<OutageScenarioResult> {
  const { postgres } = options;
  const database = `outage_${options.outage}_${randomBytes(4).toString("hex")}`;
  const databaseUrl = await postgres.createDatabase(database);
  const servers = await startServeProcesses({
    config: CRASH_LOOP_CONFIG,
    databaseUrl,
    databaseSchema: "public",
    count: 2,
    workers: 8,
  });
  const exits: Array<{ server: number; code: number; at: number }> = [];
  servers.forEach((server, index) => void server.exited.then((code) => exits.push({ server: index, code, at: Date.now() })));
  const alive = () => servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);

  const clients = await Promise.all(servers.map((s) => clientsFor(s.url, "steps")));
  const health = watchHealth(servers.map((s) => s.url));
  const stopLoad = new AbortController();
  const record: LoadRecord = { answers: [], tasks: [], runs: [] };
  const load = runLoad({ clients, loops: LOOPS, stepMs: LOAD_STEP_MS, stop: stopLoad.signal, record });

  await pause(2000);
  const inFlight = await startInFlight(clients);
  const outageStart = Date.now();
  let backendsTerminated = 0;
  if (options.outage === "terminate") {
    while (Date.now() - outageStart < options.outageMs) {
      backendsTerminated += await postgres.terminateBackends(database);
      await pause(250);
    }
  } else {
    await (options.outage === "fast" ? postgres.stop() : postgres.stopImmediate());
    await pause(options.outageMs);
    await postgres.start();
  }
  const restartedAt = Date.now();

  // Recovery: both kinds of call acknowledged again, and every server's database check green (or give up).
  const firstOk = (kind: Answer["kind"]) => record.answers.find((a) => a.kind === kind && a.outcome === "ok" && a.startedAt >= restartedAt);
  const checkDbOk = (server: number) =>
    health.samples.find((s) => s.server === server && s.checkDb && s.at >= restartedAt && s.status === 200);
  while (Date.now() - restartedAt < options.recoveryMs + 5000 && alive().length > 0) {
    if (firstOk("a2a") && firstOk("sdk") && servers.every((_, i) => checkDbOk(i))) break;
    await pause(100);
  }
  await pause(2000);
  stopLoad.abort();
  await load;

  const reader = alive()[0];
  const readerClients = reader ? clients[servers.indexOf(reader)] : undefined;
  const inFlightOutcomes = readerClients
    ? await settleInFlight(readerClients.sdk, inFlight)
    : inFlight.map(() => "not read: no server left");
  const readBackProblems = readerClients ? await readBack(readerClients, record, SETTLE_MS) : ["not read back: no server left"];
  health.stop();

  const logLines = servers.flatMap((s) => jsonLines(s.stdout()));
  const attempts = logLines.filter((l) => l.msg === "run started").map((l) => Number(l.attempt));
  const during = record.answers.filter((a) => a.endedAt >= outageStart && a.startedAt <= restartedAt);
  const count = (answers: Answer[], outcome: Answer["outcome"]) => answers.filter((a) => a.outcome === outcome).length;
  const since = (at: number | undefined) => (at === undefined ? null : at - restartedAt);
  const checkDbTimes = servers.map((_, i) => since(checkDbOk(i)?.at));
  const figures: OutageFigures = {
    outage: options.outage,
    outageMs: restartedAt - outageStart,
    answers: record.answers.length,
    duringOutage: { ok: count(during, "ok"), refused: count(during, "refused"), bad: count(during, "bad") },
    bad: count(record.answers, "bad"),
    firstA2AOkAfterRestartMs: since(firstOk("a2a")?.endedAt),
    firstSdkOkAfterRestartMs: since(firstOk("sdk")?.endedAt),
    checkDbOkAfterRestartMs: checkDbTimes.some((t) => t === null) ? null : Math.max(...(checkDbTimes as number[])),
    checkDb503DuringOutage: health.samples.filter((s) => s.checkDb && s.status === 503 && s.at >= outageStart && s.at <= restartedAt)
      .length,
    okNon200: health.samples.filter((s) => !s.checkDb && s.status !== 200).length,
    backendsTerminated,
    inFlight: inFlightOutcomes,
    runRestarts: attempts.filter((a) => a >= 2).length,
    maxAttempt: Math.max(0, ...attempts),
    requeued: logLines.filter((l) => typeof l.msg === "string" && /^run (requeued|handed back)/.test(l.msg)).length,
    tasksAcked: record.tasks.length,
    runsAcked: record.runs.length,
    serverExits: exits.length,
    refusals: distinct(
      record.answers.filter((a) => a.outcome === "refused").map((a) => `${a.kind} ${a.detail}`),
      6,
    ),
  };
  const problems = scenarioProblems(options, figures, { exits, outageStart, record, health: health.samples, checkDbTimes });
  problems.push(...inFlightOutcomes.filter((o) => !o.endsWith(": success")).map((o) => `in-flight run ${o}`));
  problems.push(...readBackProblems);
  return { figures, problems, serverLog: serverLog(servers) };
}

function scenarioProblems(
  options: OutageScenarioOptions,
  figures: OutageFigures,
  seen: {
    exits: Array<{ server: number; code: number; at: number }>;
    outageStart: number;
    record: LoadRecord;
    health: HealthSample[];
    checkDbTimes: (number | null)[];
  },
): string[] {
  const problems: string[] = [];
  const at = (time: number) => `${((time - seen.outageStart) / 1000).toFixed(1)} s after the outage began`;
  for (const exit of seen.exits) problems.push(`server ${exit.server} exited with code ${exit.code}, ${at(exit.at)}`);
  for (const sample of seen.health.filter((s) => !s.checkDb && s.status !== 200).slice(0, 5))
    problems.push(`server ${sample.server} /ok answered ${sample.status} (${sample.error ?? ""}), ${at(sample.at)}`);
  // A restart takes the database away for the whole outage: the check must say so. Cut connections are
  // replaced at once, so there the check may stay green.
  if (options.outage !== "terminate" && figures.checkDb503DuringOutage === 0)
    problems.push("/ok?check_db=1 never answered 503 during the outage");
  seen.checkDbTimes.forEach((time, server) => {
    if (time === null || time > options.recoveryMs)
      problems.push(`server ${server}: /ok?check_db=1 not 200 within ${options.recoveryMs} ms of the restart (${time ?? "never"})`);
  });
  for (const [kind, time] of [
    ["A2A SendMessage", figures.firstA2AOkAfterRestartMs],
    ["SDK runs.wait", figures.firstSdkOkAfterRestartMs],
  ] as const) {
    if (time === null || time > options.recoveryMs)
      problems.push(`${kind}: no success within ${options.recoveryMs} ms of the restart (${time ?? "never"})`);
  }
  // Bad answers by what they were, each with how many and when the first one was asked.
  const bad = new Map<string, { first: number; count: number }>();
  for (const answer of seen.record.answers.filter((a) => a.outcome === "bad")) {
    const key = `${answer.kind}: ${answer.detail}`;
    const entry = bad.get(key) ?? { first: answer.startedAt, count: 0 };
    bad.set(key, { first: entry.first, count: entry.count + 1 });
  }
  for (const [key, { first, count }] of bad) problems.push(`${count} x ${key} (the first ${at(first)})`);
  return problems;
}

interface InFlightRun {
  threadId: string;
  runId: string;
  text: string;
}

/** Four slow runs (4 nodes of 1.5 s) on new threads, spread over the servers; resolves once each is running. */
async function startInFlight(clients: ServerClients[]): Promise<InFlightRun[]> {
  const runs = await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, i) => {
      const { sdk } = clients[i % clients.length];
      const threadId = crypto.randomUUID();
      const text = `in flight ${i}`;
      const run = await sdk.runs.create(threadId, "steps", {
        input: { messages: [{ role: "user", content: text }], stepMs: IN_FLIGHT_STEP_MS },
        ifNotExists: "create",
      });
      return { threadId, runId: run.run_id, text };
    }),
  );
  const deadline = Date.now() + 15_000;
  for (const run of runs) {
    while ((await clients[0].sdk.runs.get(run.threadId, run.runId)).status === "pending") {
      if (Date.now() > deadline) throw new Error(`in-flight run ${run.runId} did not start within 15 s`);
      await pause(100);
    }
  }
  return runs;
}

/** Each in-flight run once it has ended: "<run id>: <status>", with what went wrong with its output. */
async function settleInFlight(sdk: Client, runs: InFlightRun[]): Promise<string[]> {
  const deadline = Date.now() + SETTLE_MS;
  return Promise.all(
    runs.map(async (run) => {
      let status = "unknown";
      while (Date.now() < deadline) {
        try {
          status = (await sdk.runs.get(run.threadId, run.runId)).status;
          if (status !== "pending" && status !== "running") break;
        } catch (error) {
          status = `unreadable (${String(error).slice(0, 200)})`;
          if ((error as { status?: number }).status === 404) break; // an acknowledged run is gone: waiting will not bring it back
        }
        await pause(250);
      }
      if (status !== "success") return `${run.runId}: ${status}`;
      const state = await sdk.threads.getState<{ steps?: string[]; messages?: Array<{ content: unknown }> }>(run.threadId);
      const steps = state.values.steps ?? [];
      const messages = (state.values.messages ?? []).map((m) => String(m.content));
      if (steps.join() !== STEPS.join() || messages.join("|") !== [run.text, replyTo(run.text)].join("|"))
        return `${run.runId}: success but steps ${JSON.stringify(steps)}, messages ${JSON.stringify(messages)}`;
      return `${run.runId}: success`;
    }),
  );
}

/** The servers' stderr lines and warn/error JSON lines, distinct (by their first 240 characters), with counts. */
function serverLog(servers: ServeProcess[]): string {
  const lines = servers.flatMap((s, i) => [
    ...s
      .stderr()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => `server ${i} stderr: ${l}`),
    ...jsonLines(s.stdout())
      .filter((l) => Number(l.level) >= 40)
      .map((l) => `server ${i} ${Number(l.level) >= 50 ? "error" : "warn"}: ${String(l.msg)} ${l.err ? JSON.stringify(l.err) : ""}`),
  ]);
  return distinct(lines, 60).join("\n");
}

/** The distinct `lines` (by their first 240 characters), each with its count, in order of first appearance; at most `limit`. */
function distinct(lines: string[], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = line.slice(0, 240);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const out = [...counts].slice(0, limit).map(([line, n]) => (n > 1 ? `${line} (x${n})` : line));
  if (counts.size > limit) out.push(`... ${counts.size - limit} more distinct lines`);
  return out;
}
