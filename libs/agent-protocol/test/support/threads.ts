import { afterAll, beforeAll, expect } from "vitest";
import { drivers, type TestDriver } from "@agent-server/testing";
import type { RunCommand } from "@agent-server/engine";
import { startTestServer, type TestServer } from "./index.js";

/** The backends the /threads tests run on: the two durable drivers, and memory (it costs little). */
export const threadDrivers: TestDriver[] = drivers.filter((d) => ["memory", "sqlite", "postgres"].includes(d.name));

/** Starts the real server over a fresh store of `driver` for the enclosing describe block. */
export function useServer(driver: TestDriver): () => TestServer {
  let server: TestServer | undefined;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage);
  });
  afterAll(async () => {
    await server?.close();
    await dispose?.();
  });
  return () => server!;
}

/** Runs a graph on a thread to its end through the runs API (`client.runs.wait`), and returns the run. */
export async function runToEnd(server: TestServer, threadId: string, assistantId: string, input: unknown, command?: RunCommand) {
  await server.client.runs.wait(threadId, assistantId, {
    input: input as Record<string, unknown> | null | undefined,
    command: command as never,
  });
  const [run] = await server.client.runs.list(threadId, { limit: 1 });
  expect(run.status).toBe("success");
  return run;
}

export const say = (content: string) => ({ messages: [{ role: "user", content }] });

export type WireMessage = { type: string; content: string };

/** Raw request for what the SDK cannot send (bad input) or does not expose. */
export async function call(server: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** The status of a rejected SDK call (its HTTPError carries it). */
export async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    return (error as { status: number }).status;
  }
  throw new Error("expected the request to fail");
}
