import { afterAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers, sealedDrivers } from "@agent-server/testing";
import { a2aRoutes } from "./index.js";

/**
 * The amendment's reproducer (seed/durable-a2a-task-results.md, "Gate before adding surface"): with the
 * official @a2a-js/sdk client, does GetTask(first task) still return the first task's artifact after a
 * second turn, a keep_latest prune and a restart (storage reopened, new server)?
 *
 * With the projection-only adapter of step 1 it did not (GetTask(task 1) showed "echo: second"; the
 * failing baseline's exact values are kept in docs/decisions/0001-durable-a2a-results.md). With the
 * RunResult primitive (step 2) the original parts come back exactly, on every driver.
 * `observations` is printed at the end for that record.
 */
const observations: Record<string, unknown> = {};
afterAll(() => console.log(`A2A gate observations:\n${JSON.stringify(observations, null, 2)}`));

async function startA2AServer(storage: Storage): Promise<TestServer> {
  return startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
}

/** The official client, through the card at /a2a/<assistant>/.well-known/agent-card.json (trailing slash!). */
async function a2aClient(server: TestServer, assistant = "echo"): Promise<A2AClient> {
  return new ClientFactory().createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/${assistant}/`);
}

async function send(client: A2AClient, text: string, contextId = ""): Promise<Task> {
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] },
    }),
  );
  if (!("status" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

/** A readable digest of artifact parts: the text part, and the data part's messages as "type: content". */
function digest(parts: Part[]): { text: string[]; messages: string[] } {
  const text: string[] = [];
  const messages: string[] = [];
  for (const part of parts) {
    if (part.content?.$case === "text") text.push(part.content.value);
    if (part.content?.$case === "data") {
      for (const m of (part.content.value?.messages ?? []) as Array<{ type?: string; content?: unknown }>) {
        messages.push(`${m.type}: ${String(m.content)}`);
      }
    }
  }
  return { text, messages };
}

describe.each([...drivers, ...sealedDrivers])("A2A durable task results ($name)", (driver) => {
  it("GetTask(first task) after a second turn, keep_latest prune and reopen vs its original artifact", async () => {
    const opened = await driver.open();
    let server = await startA2AServer(opened.storage);
    const record: Record<string, unknown> = {};
    observations[driver.name] = record;
    try {
      const client = await a2aClient(server);
      const card = await client.getAgentCard();
      expect(card.supportedInterfaces[0]).toMatchObject({ protocolBinding: "JSONRPC", protocolVersion: "1.0" });

      const first = await send(client, "first");
      expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const original = first.artifacts[0]!.parts;
      record.original = { ...digest(original), textPart: original[0] };
      expect(digest(original)).toEqual({ text: ["echo: first"], messages: ["human: first", "ai: echo: first"] });

      const second = await send(client, "second", first.contextId);
      expect(second.contextId).toBe(first.contextId);
      expect(second.id).not.toBe(first.id);
      // A task's artifact carries its own turn's messages, not the conversation so far: it stays the same
      // size on the context's 1,000th turn as on its second.
      expect(digest(second.artifacts[0]!.parts)).toEqual({ text: ["echo: second"], messages: ["human: second", "ai: echo: second"] });

      const afterSecondTurn = (await client.getTask({ tenant: "", id: first.id })).artifacts[0]!.parts;
      record.afterSecondTurn = { ...digest(afterSecondTurn), textPart: afterSecondTurn[0] };

      expect(await server.client.threads.prune([first.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const afterPrune = await client.getTask({ tenant: "", id: first.id });
      record.afterPrune = {
        state: TaskState[afterPrune.status!.state],
        ...digest(afterPrune.artifacts[0]!.parts),
        textPart: afterPrune.artifacts[0]!.parts[0],
      };

      expect(afterSecondTurn).toEqual(original);
      expect(afterPrune.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(afterPrune.artifacts[0]!.parts).toEqual(original);

      if (opened.reopen) {
        // A process restart: the server closes, the same database is opened by a new driver and server.
        await server.close();
        server = await startA2AServer(await opened.reopen());
        const reopened = await (await a2aClient(server)).getTask({ tenant: "", id: first.id });
        record.afterReopen = {
          state: TaskState[reopened.status!.state],
          ...digest(reopened.artifacts[0]!.parts),
          textPart: reopened.artifacts[0]!.parts[0],
        };
        expect(reopened.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(reopened.artifacts[0]!.parts).toEqual(original);
      }
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});

describe.each([...drivers.filter((d) => d.name !== "memory"), ...sealedDrivers])("A2A durable task failures ($name)", (driver) => {
  it("GetTask(failed task) says what failed after a later turn and a restart", async () => {
    const opened = await driver.open();
    let server = await startA2AServer(opened.storage);
    try {
      const failing = await a2aClient(server, "failing");
      const failed = await send(failing, "boom");
      const said = "The run failed: Error: graph failed on purpose";
      const statusText = (task: Task) =>
        task.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
      expect(statusText(failed)).toBe(said);
      await send(failing, "later", failed.contextId);
      await server.close();
      server = await startA2AServer(await opened.reopen!());
      const reopened = await (await a2aClient(server, "failing")).getTask({ tenant: "", id: failed.id });
      expect(reopened.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(reopened)).toBe(said);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});

/** A custom driver whose RunRepo has no result methods (what a wrapper must not invent either). */
function withoutResults(storage: Storage): Storage {
  const runs = new Proxy(storage.runs, {
    get(target, property) {
      if (property === "recordResult" || property === "getResult") return undefined;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return new Proxy(storage, { get: (target, property) => (property === "runs" ? runs : Reflect.get(target, property, target)) });
}

describe("A2A adapter surface", () => {
  it("refuses to admit a task on a driver without result methods, before any thread or run exists", async () => {
    const opened = await drivers.find((d) => d.name === "sqlite")!.open();
    const storage = withoutResults(opened.storage);
    const server = await startA2AServer(storage);
    try {
      const client = await a2aClient(server);
      const before = { threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 1000 })).length };
      await expect(send(client, "hello")).rejects.toThrow(/cannot record run results/);
      expect({ threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 1000 })).length }).toEqual(before);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });

  it("answers unknown tasks and unsupported methods with the SDK's errors", async () => {
    const opened = await drivers.find((d) => d.name === "memory")!.open();
    const server = await startA2AServer(opened.storage);
    try {
      const client = await a2aClient(server);
      await expect(client.getTask({ tenant: "", id: "00000000-0000-0000-0000-000000000000" })).rejects.toThrow(/not found/i);
      await expect(client.cancelTask({ tenant: "", id: "x", metadata: undefined })).rejects.toThrow(/not found/i);
      const missing = await fetch(`${server.url.replace(/\/$/, "")}/a2a/nope/.well-known/agent-card.json`);
      expect(missing.status).toBe(404);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});
