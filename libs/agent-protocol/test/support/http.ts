import { expect } from "vitest";
import { drivers, type TestDriver } from "@agent-server/testing";
import { startTestServer, type TestServer } from "./index.js";

/** The drivers the HTTP tests run on: SQLite and PostgreSQL always, memory because it is cheap. */
export const httpDrivers: TestDriver[] = drivers.filter((d) => ["memory", "sqlite", "postgres"].includes(d.name));

/** A test server over a freshly opened driver; `close` also disposes the driver's data. */
export async function openServer(driver: TestDriver, options: Parameters<typeof startTestServer>[1] = {}): Promise<TestServer> {
  const opened = await driver.open();
  const server = await startTestServer(opened.storage, options);
  return {
    ...server,
    async close() {
      await server.close();
      await opened.dispose();
    },
  };
}

/**
 * Asserts that an SDK call failed with this HTTP status (the SDK throws `HTTPError` with `status` and
 * the response text in its message) and, when given, that the JSON `detail` matches.
 */
export async function expectHttpError(call: Promise<unknown>, status: number, detail?: RegExp): Promise<void> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number; message?: string } | undefined;
  expect(error, `expected HTTP ${status}, got success`).toBeDefined();
  expect(error?.status, error?.message).toBe(status);
  if (detail) {
    const body = JSON.parse(String(error?.message).replace(/^HTTP \d+: /, "")) as { detail?: string };
    expect(body.detail).toMatch(detail);
  }
}

/**
 * The status a join stream was refused with. Such a stream answers 200 with exactly one `error` event
 * whose message starts with the status (as the official server does); `undefined` when the stream was
 * not refused that way.
 */
export function streamRefusal(response: { status: number; text: string }): number | undefined {
  if (response.status !== 200) return undefined;
  const events = response.text.split("\n\n").filter((frame) => frame.trim() !== "");
  if (events.length !== 1 || !events[0]!.startsWith("event: error\n")) return undefined;
  const data = JSON.parse(events[0]!.split("\n")[1]!.replace(/^data: /, "")) as { message?: string };
  const status = /^(\d{3}): /.exec(data.message ?? "")?.[1];
  return status === undefined ? undefined : Number(status);
}

/** The same for a join stream read with the SDK: its only chunk is an `error` event naming the status. */
export async function sdkStreamRefusal(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<number | undefined> {
  const chunks: { event: string; data: unknown }[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  if (chunks.length !== 1 || chunks[0]!.event !== "error") return undefined;
  const status = /^(\d{3}): /.exec((chunks[0]!.data as { message?: string }).message ?? "")?.[1];
  return status === undefined ? undefined : Number(status);
}

/** A raw JSON request, for what the SDK has no method for (or cannot send: invalid bodies). */
export async function rawJson(url: string, method: string, body?: unknown): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}
