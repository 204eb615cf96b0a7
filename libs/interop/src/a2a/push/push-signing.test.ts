import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { webhookSigningKey } from "@agent-server/engine";
import { eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";

/**
 * A2A push notifications signed with Standard Webhooks headers when the server has a signing secret,
 * beside the spec's token header and the config's Authorization, checked by a real receiver on loopback
 * HTTP with its own verification. SQLite, so a config's credentials are seen to survive a restart.
 */

interface Attempt {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Records every attempt (the raw body bytes), answering 500 to the first `failures`. */
async function receiver(failures = 0) {
  const attempts: Attempt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      attempts.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(attempts.length <= failures ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver's check from the Standard Webhooks specification, independent of the server's code. */
function verify(secret: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const [id, timestamp, signatures] = [headers["webhook-id"], headers["webhook-timestamp"], headers["webhook-signature"]];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    const given = Buffer.from(signature ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function tampered(body: Buffer, at = 2): Buffer {
  const copy = Buffer.from(body);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

type Push = { url: string; token?: string; authentication?: { scheme: string; credentials: string } };

async function send(
  client: A2AClient,
  parts: unknown[],
  options: { taskId?: string; contextId?: string; push?: Push } = {},
): Promise<Task> {
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        taskId: options.taskId ?? "",
        contextId: options.contextId ?? "",
        parts,
      },
      ...(options.push ? { configuration: { taskPushNotificationConfig: options.push } } : {}),
    }),
  );
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

const state = (attempt: Attempt) =>
  (JSON.parse(attempt.body.toString("utf8")) as { task: { status: { state: string } } }).task.status.state;

describe.each(drivers.filter((d) => d.name === "sqlite"))("signed A2A push notifications ($name)", (driver) => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const cleanups: (() => Promise<void>)[] = [];
  let opened: Awaited<ReturnType<typeof driver.open>>;

  async function serve(
    storage: Storage,
    options: { signed: boolean; backoffMs?: number },
  ): Promise<{ close: () => Promise<void>; client: (a: string) => Promise<A2AClient> }> {
    const server = await startTestServer(storage, {
      engine: {
        outbox: { pollMs: 50, backoffMs: options.backoffMs ?? 50, maxBackoffMs: 2000, maxAttempts: 5, timeoutMs: 2000 },
        ...(options.signed ? { webhookSigningKey: webhookSigningKey(undefined, { AGENT_SERVER_WEBHOOK_SECRET: secret }) } : {}),
      },
      app: { extraRoutes: [a2aRoutes] },
    });
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= server.close());
    cleanups.push(close);
    const base = server.url.replace(/\/$/, "");
    return { close, client: (assistant) => new ClientFactory().createFromUrl(`${base}/a2a/${assistant}/`) };
  }

  async function hook(failures = 0) {
    const started = await receiver(failures);
    cleanups.push(started.close);
    return started;
  }

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await opened?.dispose();
  });

  it("signs a push notification beside the token and Authorization headers; the config's credentials survive a restart", async () => {
    opened = await driver.open();
    const first = await serve(opened.storage, { signed: true });
    const receiving = await hook();
    const approval = await first.client("approval");
    const push = { url: receiving.url, token: "tok-1", authentication: { scheme: "Bearer", credentials: "receiver-key" } };
    const asked = await send(approval, [{ data: { request: "deploy" } }], { push });
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await eventually(async () => receiving.attempts.length === 1);
    const [waiting] = receiving.attempts as [Attempt];
    expect(state(waiting)).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(waiting.headers["x-a2a-notification-token"]).toBe("tok-1");
    expect(waiting.headers["authorization"]).toBe("Bearer receiver-key");
    expect(waiting.headers["content-type"]).toBe("application/a2a+json");
    expect(verify(secret, waiting.headers, waiting.body)).toBe(true);
    expect(verify(secret, waiting.headers, tampered(waiting.body))).toBe(false);
    expect(verify(secret, waiting.headers, tampered(waiting.body, waiting.body.length - 3))).toBe(false);

    // A restart: the config, with its authentication, is read back from the database.
    await first.close();
    const storage = await opened.reopen!();
    const second = await serve(storage, { signed: true });
    const done = await send(await second.client("approval"), [{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await eventually(async () => receiving.attempts.length === 2);
    const completed = receiving.attempts[1]!;
    expect(state(completed)).toBe("TASK_STATE_COMPLETED");
    expect(completed.headers["authorization"]).toBe("Bearer receiver-key");
    expect(completed.headers["x-a2a-notification-token"]).toBe("tok-1");
    expect(verify(secret, completed.headers, completed.body)).toBe(true);
    // Another run's notification is another message.
    expect(completed.headers["webhook-id"]).not.toBe(waiting.headers["webhook-id"]);
  });

  it("a retried notification keeps its webhook-id and gets a new timestamp and signature", async () => {
    opened = await driver.open();
    // Retries over a second apart, so the second attempt's timestamp (whole seconds) is a later one.
    const { client } = await serve(opened.storage, { signed: true, backoffMs: 1100 });
    const receiving = await hook(1);
    await send(await client("echo"), [{ text: "again" }], { push: { url: receiving.url, token: "t" } });
    await eventually(async () => receiving.attempts.length === 2, 10_000);
    const [first, second] = receiving.attempts as [Attempt, Attempt];
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(Number(second.headers["webhook-timestamp"])).toBeGreaterThan(Number(first.headers["webhook-timestamp"]));
    expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"]);
    expect(second.body.equals(first.body)).toBe(true);
    for (const attempt of [first, second]) expect(verify(secret, attempt.headers, attempt.body)).toBe(true);
    expect(verify(secret, { ...second.headers, "webhook-timestamp": first.headers["webhook-timestamp"] }, second.body)).toBe(false);
  });

  it("without a secret: no signature headers, the token and Authorization as before", async () => {
    opened = await driver.open();
    const { client } = await serve(opened.storage, { signed: false });
    const receiving = await hook();
    const push = { url: receiving.url, token: "tok-2", authentication: { scheme: "Basic", credentials: "dTpw" } };
    await send(await client("echo"), [{ text: "plain" }], { push });
    await eventually(async () => receiving.attempts.length === 1);
    const [{ headers }] = receiving.attempts as [Attempt];
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) expect(headers[name]).toBeUndefined();
    expect(headers["x-a2a-notification-token"]).toBe("tok-2");
    expect(headers["authorization"]).toBe("Basic dTpw");
  });
});
