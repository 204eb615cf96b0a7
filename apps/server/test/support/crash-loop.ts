import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { jsonLines, startCli, type CliRun } from "./cli-process.js";
import { STEPS } from "./fixture-project/steps.js";

/**
 * The crash loop: a real `agent-server dev` on a real SQLite file, loaded with LangGraph SDK runs and A2A
 * messages on a graph of four slow nodes, SIGKILLed while runs are mid-way (some checkpoints written),
 * restarted, again and again; at the end every run and task must have completed exactly once. Used by
 * crash-loop.test.ts (short) and tools/reliability/crash-loop.mjs (as long as you like).
 */
export const CRASH_LOOP_CONFIG = fileURLToPath(new URL("./fixture-project/langgraph-crash-loop.json", import.meta.url));

export interface CrashLoopOptions {
  dataDir: string;
  /** Times the server is SIGKILLed mid-flight (then one last start lets everything finish). */
  kills: number;
  sdkRunsPerRound: number;
  a2aMessagesPerRound: number;
  /** How long each of the graph's four nodes takes. */
  stepMs: number;
  /** Extra wait, up to this many ms (random), after a run is seen mid-way and before the kill. */
  killJitterMs?: number;
  log?: (line: string) => void;
}

export interface RunOutcome {
  runId: string;
  threadId: string;
  status: string;
  steps: string[];
  messages: string[];
}

export interface TaskOutcome {
  taskId: string;
  state: string;
  artifact: string[];
  /** States GetTask showed while the task was followed (after each restart, until it ended). */
  seen: string[];
  /** The artifact when it was first seen completed, to compare with later reads. */
  firstArtifact: string[];
}

export interface CrashLoopFigures {
  kills: number;
  sdkRuns: number;
  a2aTasks: number;
  /** Runs pending or running at the moments of the kills, summed. */
  inFlightAtKills: number;
  /** Distinct runs that started again as attempt 2 or later. */
  resumedRuns: number;
  maxAttempt: number;
  requeues: number;
  durationMs: number;
}

export interface CrashLoopReport {
  figures: CrashLoopFigures;
  runs: RunOutcome[];
  tasks: TaskOutcome[];
  /** `PRAGMA integrity_check` of the file after the last clean stop. */
  integrity: string;
  /** Run statuses in the file after the last clean stop, with their counts. */
  statuses: Record<string, number>;
}

const SETTLED = new Set(["success", "error", "timeout", "interrupted"]);
const TERMINAL_TASK = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"]);

export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const runs: Array<{ runId: string; threadId: string }> = [];
  const tasks = new Map<string, TaskOutcome>();
  const logs: string[] = [];
  let inFlightAtKills = 0;
  let outcomes: RunOutcome[] = [];

  for (let round = 0; round <= options.kills; round++) {
    const server = await start(options.dataDir);
    try {
      const client = new Client({ apiUrl: server.url });
      const a2a = await new ClientFactory().createFromUrl(`${server.url}/a2a/steps/`);
      // What earlier rounds left in flight resumes now: wait for all of it (joiners get the final values).
      outcomes = await Promise.all(runs.map((run) => joinRun(client, run)));
      await followTasks(a2a, tasks);
      if (round === options.kills) {
        server.child.kill("SIGTERM");
        if ((await server.exited) !== 0) throw new Error(`the last server did not stop cleanly:\n${server.stderr()}`);
        break;
      }
      // Load until a run is seen mid-way (on a busy machine a whole batch may finish between two looks).
      for (let batch = 0; !(await midFlight(client, await submit(client, a2a, round, options, runs, tasks))); batch++) {
        if (batch === 4) throw new Error("no run was seen mid-way in 5 batches");
      }
      if (options.killJitterMs) await delay(Math.floor(Math.random() * options.killJitterMs));
      inFlightAtKills += await countInFlight(client, runs, tasks);
      server.child.kill("SIGKILL");
      await server.exited;
      log(`round ${round + 1}: killed with ${runs.length} runs and ${tasks.size} tasks submitted so far`);
    } finally {
      logs.push(server.stdout());
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    }
  }

  const lines = logs.flatMap((out) => jsonLines(out));
  const attempts = lines.filter((l) => l.msg === "run started").map((l) => ({ runId: String(l.run_id), attempt: Number(l.attempt) }));
  const storage = await openSqliteStorage({ path: join(options.dataDir, "agent-server.sqlite") });
  let integrity: string;
  let statuses: Record<string, number>;
  try {
    integrity = String(storage.db.pragma("integrity_check", { simple: true }));
    const rows = storage.db.prepare("SELECT status, count(*) AS n FROM runs GROUP BY status").all() as Array<{ status: string; n: number }>;
    statuses = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await storage.close();
  }
  return {
    figures: {
      kills: options.kills,
      sdkRuns: runs.length,
      a2aTasks: tasks.size,
      inFlightAtKills,
      resumedRuns: new Set(attempts.filter((a) => a.attempt >= 2).map((a) => a.runId)).size,
      maxAttempt: Math.max(0, ...attempts.map((a) => a.attempt)),
      requeues: lines.filter((l) => typeof l.msg === "string" && l.msg.startsWith("run requeued")).length,
      durationMs: Date.now() - started,
    },
    runs: outcomes,
    tasks: [...tasks.values()],
    integrity,
    statuses,
  };
}

/**
 * What must hold after a crash loop, one line per breach: every run succeeded with each node done once,
 * its input and reply written once; every task completed, never shown FAILED, its artifact the reply and
 * the same as when first seen completed; nothing left pending or running; the file intact.
 */
export function crashLoopProblems(report: CrashLoopReport): string[] {
  const problems: string[] = [];
  for (const run of report.runs) {
    const once = run.messages.length === 2 && run.messages[1] === `done: ${run.messages[0]}`;
    if (run.status !== "success" || run.steps.join() !== STEPS.join() || !once) problems.push(`run ${run.runId}: ${JSON.stringify(run)}`);
  }
  for (const task of report.tasks) {
    const text = task.artifact.length === 1 && /^done: a2a \d+\.\d+$/.test(task.artifact[0]);
    if (task.state !== "TASK_STATE_COMPLETED" || task.seen.includes("TASK_STATE_FAILED") || !text) {
      problems.push(`task ${task.taskId}: ${JSON.stringify(task)}`);
    } else if (task.artifact.join() !== task.firstArtifact.join()) {
      problems.push(`task ${task.taskId}: artifact changed from ${JSON.stringify(task.firstArtifact)}`);
    }
  }
  for (const [status, count] of Object.entries(report.statuses)) if (status !== "success") problems.push(`${count} runs ${status}`);
  if (report.integrity !== "ok") problems.push(`integrity_check: ${report.integrity}`);
  return problems;
}

function start(dataDir: string): Promise<CliRun & { url: string }> {
  return startCli(["dev", "--config", CRASH_LOOP_CONFIG, "--port", "0", "--no-reload", "--data-dir", dataDir, "--log-format", "json"]);
}

/** Submits one round's load; returns the threads of the new runs and tasks (A2A context = thread). */
async function submit(
  client: Client,
  a2a: A2AClient,
  round: number,
  options: CrashLoopOptions,
  runs: Array<{ runId: string; threadId: string }>,
  tasks: Map<string, TaskOutcome>,
): Promise<string[]> {
  const threads: string[] = [];
  for (let i = 0; i < options.sdkRunsPerRound; i++) {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: `sdk ${round}.${i}` }], stepMs: options.stepMs },
    });
    runs.push({ runId: run.run_id, threadId: thread.thread_id });
    threads.push(thread.thread_id);
  }
  for (let i = 0; i < options.a2aMessagesPerRound; i++) {
    const result = await a2a.sendMessage(
      SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text: `a2a ${round}.${i}` }, { data: { stepMs: options.stepMs } }],
        },
        configuration: { returnImmediately: true },
      }),
    );
    if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    tasks.set(result.id, { taskId: result.id, state: stateName(result), artifact: [], seen: [stateName(result)], firstArtifact: [] });
    threads.push(result.contextId);
  }
  return threads;
}

/** True once one of `threads` is mid-way (at least one node done and checkpointed, not all); false once all are done. */
async function midFlight(client: Client, threads: string[]): Promise<boolean> {
  while (true) {
    const done = await Promise.all(
      threads.map(async (threadId) => (await client.threads.getState<{ steps?: string[] }>(threadId)).values?.steps?.length ?? 0),
    );
    if (done.some((n) => n >= 1 && n < STEPS.length)) return true;
    if (done.every((n) => n === STEPS.length)) return false;
    await delay(10);
  }
}

async function countInFlight(
  client: Client,
  runs: Array<{ runId: string; threadId: string }>,
  tasks: Map<string, TaskOutcome>,
): Promise<number> {
  let count = 0;
  for (const run of runs) if (!SETTLED.has((await client.runs.get(run.threadId, run.runId)).status)) count += 1;
  for (const task of tasks.values()) if (!TERMINAL_TASK.has(task.state)) count += 1;
  return count;
}

async function joinRun(client: Client, run: { runId: string; threadId: string }): Promise<RunOutcome> {
  await client.runs.join(run.threadId, run.runId);
  const [state, row] = await Promise.all([
    client.threads.getState<{ steps?: string[]; messages?: Array<{ content: unknown }> }>(run.threadId),
    client.runs.get(run.threadId, run.runId),
  ]);
  return {
    ...run,
    status: row.status,
    steps: state.values?.steps ?? [],
    messages: (state.values?.messages ?? []).map((m) => String(m.content)),
  };
}

/** Polls every task until it has ended, recording the states seen and its artifact. */
async function followTasks(a2a: A2AClient, tasks: Map<string, TaskOutcome>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const task of tasks.values()) {
    while (true) {
      const read = await a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 });
      task.state = stateName(read);
      task.artifact = texts(read);
      if (task.seen.at(-1) !== task.state) task.seen.push(task.state);
      if (TERMINAL_TASK.has(task.state)) break;
      if (Date.now() > deadline) throw new Error(`task ${task.taskId} still ${task.state}`);
      await delay(25);
    }
    if (task.state === "TASK_STATE_COMPLETED" && task.firstArtifact.length === 0) task.firstArtifact = task.artifact;
  }
}

function stateName(task: Task): string {
  return TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] as string;
}

function texts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
