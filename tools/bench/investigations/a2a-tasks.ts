/**
 * A2A task reads against a store that also holds many ordinary runs: ListTasks (all tasks of an agent,
 * and one context), GetTask. Real HTTP on loopback with the official @a2a-js/sdk client.
 *
 *   npx tsx tools/bench/investigations/a2a-tasks.ts [--driver memory|sqlite|postgres] [--runs 20000] [--tasks 200] [--rounds 20]
 *
 * Postgres uses POSTGRES_URL, else starts an embedded server. Prints one line per measurement (ms).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ClientFactory } from "@a2a-js/sdk/client";
import { TaskState } from "@a2a-js/sdk";
import { startTestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { a2aRoutes } from "@agent-server/interop";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { openSqliteStorage } from "@agent-server/storage-sqlite";

const { values: args } = parseArgs({
  options: {
    driver: { type: "string", default: "sqlite" },
    runs: { type: "string", default: "20000" },
    tasks: { type: "string", default: "200" },
    rounds: { type: "string", default: "20" },
  },
});
const plainRuns = Number(args.runs);
const taskCount = Number(args.tasks);
const rounds = Number(args.rounds);

async function openStorage(): Promise<{ storage: Storage; dispose(): Promise<void> }> {
  if (args.driver === "memory") {
    const storage = createMemoryStorage();
    return { storage, dispose: () => storage.close() };
  }
  if (args.driver === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-a2a-"));
    const storage = await openSqliteStorage({ path: join(dir, "bench.sqlite") });
    return { storage, dispose: async () => (await storage.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const { postgresForScript } = await import("@agent-server/testing/postgres");
  const { url, stop } = await postgresForScript();
  const schema = `bench_${Date.now().toString(36)}`;
  const storage = await openPostgresStorage({ connectionString: url, schema });
  return { storage, dispose: async () => (await storage.close(), await stop()) };
}

/** `count` runs spread over threads of 50 runs, as a busy LangGraph API store would have them. */
async function seed(storage: Storage, assistantId: string): Promise<string[]> {
  const contexts: string[] = [];
  let thread = "";
  const total = plainRuns + taskCount;
  const taskEvery = Math.max(1, Math.floor(total / Math.max(1, taskCount)));
  let tasks = 0;
  for (let i = 0; i < total; i++) {
    if (i % 50 === 0) {
      thread = (await storage.threads.create({ thread_id: crypto.randomUUID() })).thread_id;
    }
    const isTask = tasks < taskCount && i % taskEvery === 0;
    const run = await storage.runs.create(
      { run_id: crypto.randomUUID(), thread_id: thread, assistant_id: assistantId, status: "success" },
      isTask ? { internal: { captureResult: true } } : undefined,
    );
    if (isTask) {
      tasks++;
      contexts.push(thread);
      await storage.runs.recordResult!(run.run_id, { values: { messages: [{ type: "ai", content: `task ${i}` }] }, reply: `task ${i}` });
    }
  }
  return contexts;
}

async function time(label: string, fn: () => Promise<unknown>): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const p = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(1);
  console.log(`${args.driver}\t${label}\tp50 ${p(0.5)} ms\tp95 ${p(0.95)} ms`);
}

const { storage, dispose } = await openStorage();
const server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
try {
  const assistantId = server.engine.registry.resolveAssistantId("echo");
  const seedStart = performance.now();
  const contexts = await seed(storage, assistantId);
  console.log(
    `${args.driver}\tseeded ${plainRuns} plain runs + ${contexts.length} tasks in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const client = await new ClientFactory().createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/echo/`);
  const list = (contextId: string) =>
    client.listTasks({
      tenant: "",
      contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 50,
      pageToken: "",
      statusTimestampAfter: undefined,
    } as never);
  const all = await list("");
  console.log(`${args.driver}\tListTasks (no context) totalSize ${all.totalSize} of ${contexts.length} tasks`);
  await time("ListTasks, no contextId, pageSize 50", () => list(""));
  await time("ListTasks, one contextId", () => list(contexts[contexts.length >> 1]!));
  const someTask = all.tasks[0]!.id;
  await time("GetTask", () => client.getTask({ tenant: "", id: someTask } as never));
} finally {
  await server.close();
  await dispose();
}
