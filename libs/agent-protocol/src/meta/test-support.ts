import { expect } from "vitest";
import { drivers, type TestDriver } from "@agent-server/engine/testing";
import { startTestServer, type TestServer } from "../testing/index.js";

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
