import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { openPostgresStorage, type PostgresStorage } from "@agent-server/storage-postgres";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../../test/support/cli-process.js";
import { startServeProcesses, type ServeProcess } from "../../test/support/serve-processes.js";

/**
 * Work spread over three `agent-server serve` processes on one PostgreSQL schema, as a load balancer
 * spreads it: A2A tasks, racing resumes, cron ticks and webhooks each happen once, whichever process
 * takes the request and whichever executes the run. One set of processes for every case (start-up is
 * the expensive part).
 */
const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-scale-out.json", import.meta.url));

let schema: TestSchema;
let storage: PostgresStorage;
let servers: ServeProcess[];

beforeAll(async () => {
  schema = await createTestSchema("scale_work");
  servers = await startServeProcesses({ config: PROJECT, databaseUrl: schema.url, databaseSchema: schema.schema, count: 3, workers: 2 });
  storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
}, 120_000);

afterAll(async () => {
  await killAll();
  await storage?.close();
  await schema?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One official A2A client per process for `agent`, index-aligned with `servers`. */
function a2aClients(agent: string): Promise<A2AClient[]> {
  return Promise.all(servers.map((s) => new ClientFactory().createFromUrl(`${s.url}/a2a/${agent}/`)));
}

async function send(client: A2AClient, parts: unknown[], taskId?: string): Promise<Task> {
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...(taskId ? { taskId } : {}) } }),
  );
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

function artifactTexts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

/** Polls `check` until it returns true (each case's own vitest timeout bounds the wait). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(100);
}

describe("three serve processes over one PostgreSQL: work spread over them happens once", () => {
  it("30 A2A sends spread over the three all complete with their own artifact, read through another process", async () => {
    const clients = await a2aClients("steps");
    const tasks = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(clients[i % 3]!, [{ text: `a2a ${i}` }, { data: { stepMs: 20 } }])),
    );
    expect(new Set(tasks.map((t) => t.id)).size).toBe(30);
    for (const [i, task] of tasks.entries()) {
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(task)).toEqual([`done: a2a ${i}`]);
      // GetTask through a process other than the one that took the send.
      const read = await clients[(i + 1) % 3]!.getTask({ tenant: "", id: task.id });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(read)).toEqual([`done: a2a ${i}`]);
    }
  });

  it("two resumes of one input-required task sent at once to two processes: exactly one goes through", async () => {
    const clients = await a2aClients("approval");
    for (let i = 0; i < 3; i++) {
      const [asker, first, second] = [clients[i % 3]!, clients[(i + 1) % 3]!, clients[(i + 2) % 3]!];
      const asked = await send(asker, [{ data: { request: `deploy ${i}` } }]);
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const settled = await Promise.allSettled([send(first, [{ text: "yes" }], asked.id), send(second, [{ text: "no" }], asked.id)]);
      const through = settled.filter((r): r is PromiseFulfilledResult<Task> => r.status === "fulfilled");
      expect(through).toHaveLength(1);
      expect(through[0]!.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The other: the task no longer awaits input (-32004) or its checkpoint moved on (-32602).
      const refused = settled.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
      expect([-32004, -32602]).toContain((refused.reason as { envelopeCode?: number }).envelopeCode);
      // One continuation run, and the decision is the winner's.
      const runs = await storage.runs.search({ thread_id: asked.contextId, limit: 10 });
      expect(runs).toHaveLength(2);
      const decision = settled[0]!.status === "fulfilled" ? "yes" : "no";
      const state = await servers[i % 3]!.client.threads.getState<{ decision: string }>(asked.contextId);
      expect(state.values.decision).toBe(decision);
    }
  });

  it("a cron tick fires exactly once across the three processes", async () => {
    const [a] = servers;
    // Yearly schedules, made due by moving their next tick into the past (as the clock would): schedules
    // are minute-grained, and the one tick each is forced is the only one that can come within the test.
    const crons: Array<{ cronId: string; threadId: string }> = [];
    for (let i = 0; i < 6; i++) {
      const thread = await a!.client.threads.create();
      // enqueue: a second firing of a tick would be admitted behind the first, never refused, so it would show.
      const cron = await a!.client.crons.createForThread(thread.thread_id, "steps", {
        schedule: "0 0 1 1 *",
        input: { messages: [{ role: "user", content: `cron ${i}` }], stepMs: 10 },
        multitaskStrategy: "enqueue",
      });
      crons.push({ cronId: cron.cron_id, threadId: thread.thread_id });
    }
    for (let tick = 1; tick <= 2; tick++) {
      const dueAt = new Date(Date.now() - 1000).toISOString();
      for (const { cronId } of crons) {
        const expected = (await storage.crons.get(cronId))!.next_run_date!;
        expect(await storage.crons.advance(cronId, expected, dueAt)).toBe(true);
      }
      // Claimed: each cron's next tick is back in the future.
      await until(async () => {
        const all = await Promise.all(crons.map(async ({ cronId }) => (await storage.crons.get(cronId))!.next_run_date!));
        return all.every((next) => next > dueAt);
      });
      // Every process's scheduler (5 s poll) has looked since the tick was due: a double firing would be admitted by now.
      await sleep(5_500);
      for (const { threadId } of crons) {
        const runs = await a!.client.runs.list(threadId, { limit: 10 });
        expect(runs).toHaveLength(tick);
      }
    }
  });

  it("a run webhook to a loopback receiver is delivered exactly once, whichever process executes the run", async () => {
    const received: string[] = [];
    const receiver: HttpServer = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        received.push((JSON.parse(body) as { run_id: string }).run_id);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/done`;
    const database = new pg.Client({ connectionString: schema.url });
    await database.connect();
    try {
      const runs = await Promise.all(
        Array.from({ length: 9 }, async (_, i) => {
          const client = servers[i % 3]!.client;
          const thread = await client.threads.create();
          return client.runs.create(thread.thread_id, "steps", {
            input: { messages: [{ role: "user", content: `hook ${i}` }], stepMs: 20 },
            webhook,
          });
        }),
      );
      // Delivered: every delivery of these runs is marked so (a second sender would have posted before its mark).
      const runIds = runs.map((r) => r.run_id);
      const statuses = async () =>
        (
          await database.query<{ status: string }>(`SELECT status FROM "${schema.schema}".deliveries WHERE run_id = ANY($1::text[])`, [
            runIds,
          ])
        ).rows.map((r) => r.status);
      await until(async () => {
        const s = await statuses();
        return s.length === runIds.length && s.every((status) => status !== "pending");
      });
      expect(await statuses()).toEqual(runIds.map(() => "delivered"));
      expect([...received].sort()).toEqual([...runIds].sort());
    } finally {
      await database.end();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
