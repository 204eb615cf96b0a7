import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers, StatementCounter, type StatementLog } from "@agent-server/testing";
import { a2aRoutes } from "../index.js";
import { messageRequest, sendTask } from "../../test/support/a2a-clients.js";
import { budgets, type BudgetedCall } from "../../test/support/budgets.js";

/**
 * One call of each kind, counted at the database client (`StatementCounter`), against the budget table.
 * Each call is made twice first: the first of a kind prepares statements and creates what later calls
 * find (system assistants, the card's assistant read), and the count is of a call the server has seen before.
 * Background loops are slowed down and, besides, not counted: they run outside the call's async context.
 */
/** What each call measured, printed at the end: the figures to copy into test/support/budgets.ts when they go down. */
const measured: Record<string, Record<string, string>> = {};
afterAll(() => console.log(`query budget, measured:\n${JSON.stringify(measured)}`));

const sqlDrivers = drivers.filter((driver) => driver.name === "sqlite" || driver.name === "postgres");

describe.each(sqlDrivers)("query budget per call ($name)", (driver) => {
  const kind = driver.name as "sqlite" | "postgres";
  let dispose: () => Promise<void>;
  let server: TestServer;
  let counter: StatementCounter;
  let a2a: A2AClient;

  beforeAll(async () => {
    const opened = await driver.open();
    counter = new StatementCounter(opened.storage);
    server = await startTestServer(opened.storage, {
      app: { extraRoutes: [a2aRoutes] },
      // Claim polls, waiter polls and the outbox wait on signals here: nothing of theirs lands in a window.
      // The assistant copy an engine alone keeps is read again once a second, whatever the load: the
      // budget counts the calls in between (on a loaded machine a call could land on that read).
      engine: { pollMs: 600_000, leaseMs: 30_000, cronPollMs: 600_000, outbox: { pollMs: 600_000 }, assistantCacheMs: 600_000 },
      around: counter.around,
    });
    a2a = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
    dispose = opened.dispose;
  });

  afterAll(async () => {
    counter?.uninstall();
    await server?.close();
    await dispose?.();
  });

  /** Warms `call` up twice, then counts one more, and compares with the budget. */
  async function expectBudget(name: BudgetedCall, call: () => Promise<unknown>): Promise<void> {
    await call();
    await call();
    const log = await counter.count(call);
    const budget = budgets[name];
    // NOTIFY flushes coalesce whatever signals queued up while the previous flush was in flight, so
    // their number depends on timing: they are bounded, every other statement is counted exactly.
    const notifies = log.statements.filter((sql) => sql.includes("pg_notify(")).length;
    const statements = log.statements.length - notifies;
    const prepares = log.prepares.length;
    (measured[name] ??= {})[kind] = kind === "sqlite" ? `${statements} (+${prepares} prepares)` : `${statements} (+${notifies} notify)`;
    // BUDGET_TRACE=1 prints every counted call's statements, to see where a budget goes.
    if (process.env.BUDGET_TRACE) console.log(`${name} on ${kind}:\n${describeLog(log)}`);
    const actual = { statements, prepares, notifiesWithinBound: notifies <= budget.postgresNotifyMax };
    const expected = { statements: budget[kind], prepares: kind === "sqlite" ? budget.sqlitePrepares : 0, notifiesWithinBound: true };
    expect(actual, `${name} on ${kind} (${notifies} NOTIFY flushes, at most ${budget.postgresNotifyMax}):\n${describeLog(log)}`).toEqual(
      expected,
    );
  }

  const input = (text: string) => ({ messages: [{ role: "user", content: text }] });

  it("A2A SendMessage, new context", async () => {
    await expectBudget("A2A SendMessage, new context", async () => {
      const task = await sendTask(a2a, [{ text: "hi" }]);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  it("A2A SendMessage, existing context", async () => {
    const first = await sendTask(a2a, [{ text: "first" }]);
    await expectBudget("A2A SendMessage, existing context", async () => {
      const task = await sendTask(a2a, [{ text: "again" }], { contextId: first.contextId });
      expect(task.contextId).toBe(first.contextId);
    });
  });

  it("A2A SendStreamingMessage", async () => {
    await expectBudget("A2A SendStreamingMessage", async () => {
      const events = [];
      for await (const event of a2a.sendMessageStream(messageRequest([{ text: "streamed" }]))) events.push(event);
      expect(events.length).toBeGreaterThan(0);
    });
  });

  it("A2A GetTask", async () => {
    const task = await sendTask(a2a, [{ text: "read me" }]);
    await expectBudget("A2A GetTask", async () => {
      const read = await a2a.getTask({ tenant: "", id: task.id });
      expect(read.artifacts.length).toBeGreaterThan(0);
    });
  });

  it("A2A ListTasks page", async () => {
    const first: Task = await sendTask(a2a, [{ text: "one" }]);
    await sendTask(a2a, [{ text: "two" }], { contextId: first.contextId });
    await expectBudget("A2A ListTasks page", async () => {
      const listed = await a2a.listTasks({
        tenant: "",
        contextId: first.contextId,
        status: 0,
        pageToken: "",
        includeArtifacts: true,
      } as never);
      expect(listed.tasks).toHaveLength(2);
    });
  });

  it("SDK threads.create", async () => {
    await expectBudget("SDK threads.create", () => server.client.threads.create());
  });

  it("SDK threads.create + runs.wait", async () => {
    await expectBudget("SDK threads.create + runs.wait", async () => {
      const thread = await server.client.threads.create();
      const values = (await server.client.runs.wait(thread.thread_id, "echo", { input: input("hi") })) as { messages: unknown[] };
      expect(values.messages).toHaveLength(2);
    });
  });

  it("SDK runs.wait, stateless", async () => {
    // A temporary thread made by admission (with the run, in one write where the driver can) and deleted at the run's end.
    await expectBudget("SDK runs.wait, stateless", async () => {
      const values = (await server.client.runs.wait(null, "echo", { input: input("hi") })) as { messages: unknown[] };
      expect(values.messages).toHaveLength(2);
    });
  });

  it("SDK runs.wait, if_not_exists create", async () => {
    // The thread is created by admission, with the run where the driver can.
    await expectBudget("SDK runs.wait, if_not_exists create", async () => {
      const values = (await server.client.runs.wait(randomUUID(), "echo", { input: input("hi"), ifNotExists: "create" })) as {
        messages: unknown[];
      };
      expect(values.messages).toHaveLength(2);
    });
  });

  it("SDK runs.stream", async () => {
    const thread = await server.client.threads.create();
    await expectBudget("SDK runs.stream", async () => {
      const chunks = [];
      for await (const chunk of server.client.runs.stream(thread.thread_id, "echo", { input: input("hi") })) chunks.push(chunk);
      expect(chunks.at(-1)?.event).toBe("values");
    });
  });

  it("SDK threads.getState", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "echo", { input: input("hi") });
    await expectBudget("SDK threads.getState", async () => {
      const state = await server.client.threads.getState(thread.thread_id);
      expect(state.checkpoint.checkpoint_id).toBeTruthy();
    });
  });

  it("SDK threads.getHistory", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "echo", { input: input("hi") });
    await expectBudget("SDK threads.getHistory", async () => {
      const history = await server.client.threads.getHistory(thread.thread_id);
      expect(history.length).toBeGreaterThan(1);
    });
  });
});

function describeLog(log: StatementLog): string {
  const lines = log.statements.map((sql, i) => `  ${String(i + 1).padStart(3)}. ${sql.length > 220 ? `${sql.slice(0, 217)}...` : sql}`);
  const prepares = log.prepares.map((sql) => `  prepare: ${sql.slice(0, 200)}`);
  return [...lines, ...prepares].join("\n");
}
