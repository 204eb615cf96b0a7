import { afterAll, describe, expect, it } from "vitest";
import { Role, SendMessageRequest, TaskState, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/engine/testing";
import { a2aRoutes } from "./index.js";

/**
 * The amendment's GATE (seed/durable-a2a-task-results.md, "Gate before adding surface"), step 1 of
 * issue 5: with the official @a2a-js/sdk client and a PROJECTION-ONLY adapter (task rendered from the
 * run row and the thread's current state, no cache/mirror/output capture), does GetTask(first task)
 * still return the first task's artifact after a second turn, a keep_latest prune and a SQLite reopen?
 *
 * Observed: NO. GetTask(task 1) shows the second turn's reply. A red test cannot be committed, so the
 * assertions below pin the OBSERVED failing baseline (`not.toEqual(original)` and the exact values);
 * step 2 (the RunResult primitive) flips them to `toEqual(original)`. The exact values are recorded in
 * docs/decisions/0001-durable-a2a-results.md; `observations` is printed at the end for that record.
 */
const observations: Record<string, unknown> = {};
afterAll(() => console.log(`A2A gate observations:\n${JSON.stringify(observations, null, 2)}`));

const gateDrivers = drivers.filter((d) => d.name === "memory" || d.name === "sqlite");

async function startA2AServer(storage: Storage): Promise<TestServer> {
  return startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
}

/** The official client, through the card at /a2a/echo/.well-known/agent-card.json (trailing slash!). */
async function a2aClient(server: TestServer): Promise<A2AClient> {
  return new ClientFactory().createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/echo/`);
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

describe.each(gateDrivers)("A2A durable-results gate, projection only ($name)", (driver) => {
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
      expect(digest(second.artifacts[0]!.parts).text).toEqual(["echo: second"]);

      const afterSecondTurn = (await client.getTask({ tenant: "", id: first.id })).artifacts[0]!.parts;
      record.afterSecondTurn = { ...digest(afterSecondTurn), textPart: afterSecondTurn[0] };

      expect(await server.client.threads.prune([first.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const afterPrune = await client.getTask({ tenant: "", id: first.id });
      record.afterPrune = { state: TaskState[afterPrune.status!.state], ...digest(afterPrune.artifacts[0]!.parts), textPart: afterPrune.artifacts[0]!.parts[0] };

      // GATE FAILED (documented baseline): the first task now renders the thread's current state.
      expect(afterSecondTurn).not.toEqual(original);
      expect(afterPrune.artifacts[0]!.parts).not.toEqual(original);
      const echoedSecond = {
        text: ["echo: second"],
        messages: ["human: first", "ai: echo: first", "human: second", "ai: echo: second"],
      };
      expect(digest(afterSecondTurn)).toEqual(echoedSecond);
      expect(digest(afterPrune.artifacts[0]!.parts)).toEqual(echoedSecond);

      if (opened.reopen) {
        // A process restart: the server closes, the same database file is opened by a new driver and server.
        await server.close();
        server = await startA2AServer(await opened.reopen());
        const reopened = await (await a2aClient(server)).getTask({ tenant: "", id: first.id });
        record.afterReopen = { state: TaskState[reopened.status!.state], ...digest(reopened.artifacts[0]!.parts), textPart: reopened.artifacts[0]!.parts[0] };
        expect(reopened.artifacts[0]!.parts).not.toEqual(original);
        expect(digest(reopened.artifacts[0]!.parts)).toEqual(echoedSecond);
      }
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});

describe("A2A adapter surface (step 1)", () => {
  it("answers unknown tasks and unsupported methods with the SDK's errors", async () => {
    const opened = await drivers.find((d) => d.name === "memory")!.open();
    const server = await startA2AServer(opened.storage);
    try {
      const client = await a2aClient(server);
      await expect(client.getTask({ tenant: "", id: "00000000-0000-0000-0000-000000000000" })).rejects.toThrow(/not found/i);
      await expect(client.cancelTask({ tenant: "", id: "x", metadata: undefined })).rejects.toThrow(/not supported/i);
      const missing = await fetch(`${server.url.replace(/\/$/, "")}/a2a/nope/.well-known/agent-card.json`);
      expect(missing.status).toBe(404);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});
