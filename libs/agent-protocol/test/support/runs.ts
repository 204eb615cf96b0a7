import { drivers, type TestDriver } from "@agent-server/testing";
import { startTestServer, type TestServer } from "./index.js";

/** The runs tests run on SQLite and PostgreSQL (the brief), and on memory because it is cheap. */
export const runDrivers: TestDriver[] = drivers.filter((d) => ["memory", "sqlite", "postgres"].includes(d.name));

/** A test server over a freshly opened driver; `close` also disposes the driver's data. */
export async function openRunsServer(driver: TestDriver): Promise<TestServer> {
  const opened = await driver.open();
  const server = await startTestServer(opened.storage);
  return {
    ...server,
    async close() {
      await server.close();
      await opened.dispose();
    },
  };
}

/** The HTTP status an SDK call failed with (`HTTPError.status`), or 200 when it succeeded. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number") return status;
    throw error;
  }
}

/** A raw request, for what the SDK has no method for or cannot send (invalid bodies, headers). */
export async function raw(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text.trim() ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

export const hello = { messages: [{ role: "user", content: "hi" }] };
