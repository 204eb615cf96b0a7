import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { webhookSigningKey } from "../config/webhooks.js";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

/** One request as a receiver saw it: its headers and the raw bytes of its body. */
interface Attempt {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A loopback receiver recording every attempt, answering 500 to the first `failures`. */
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A receiver's Standard Webhooks check, written from the specification and independent of the
 * server's code: decode the secret, HMAC "id.timestamp.body" over the raw bytes, compare in constant
 * time against every v1 signature of the header, and refuse a timestamp off by more than 5 minutes.
 */
function verify(secret: string, headers: Record<string, string | string[] | undefined> | Headers, body: Buffer): boolean {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  const [id, timestamp, signatures] = [get("webhook-id"), get("webhook-timestamp"), get("webhook-signature")];
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

/** The body with one byte changed. */
function tampered(body: Buffer, at = 2): Buffer {
  const copy = Buffer.from(body);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

const SIGNATURE_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"];

// The outbox is the same on every driver; SQLite keeps the retry in a real row.
describe.each(drivers.filter((d) => d.name !== "postgres"))("signed webhooks on $name", (driver) => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let storage: Storage;
  let engine: Engine | undefined;
  let dispose: () => Promise<void>;
  const cleanups: (() => Promise<void>)[] = [];

  async function start(options: { signed: boolean; backoffMs?: number; loopback?: (request: Request) => Promise<Response> }) {
    ({ storage, dispose } = await driver.open());
    engine = await startEngine(storage, {
      ...(options.signed ? { webhookSigningKey: webhookSigningKey({ signing_secret: secret }, {}) } : {}),
      ...(options.loopback ? { loopback: options.loopback } : {}),
      outbox: { pollMs: 50, backoffMs: options.backoffMs ?? 50, maxBackoffMs: 2000, maxAttempts: 5, timeoutMs: 2000 },
    });
  }

  async function runWith(webhook: string) {
    const threadId = await newThread(storage);
    const run = await engine!.createRun(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "signed" }] }, webhook },
      { threadId },
    );
    await engine!.waitRun(run.run_id);
    return run;
  }

  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
    await engine?.stop(0);
    engine = undefined;
    await dispose();
  });

  it("signs a run webhook: the receiver verifies it with the secret, and a body altered by one byte fails", async () => {
    await start({ signed: true });
    const hook = await receiver();
    cleanups.push(hook.close);
    const run = await runWith(hook.url);
    await eventually(async () => hook.attempts.length === 1);
    const [{ headers, body }] = hook.attempts as [Attempt];
    expect(JSON.parse(body.toString("utf8"))).toMatchObject({ run_id: run.run_id, status: "success" });
    expect(headers["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The id is the delivery's own row.
    expect(await storage.deliveries.get(headers["webhook-id"] as string)).toMatchObject({ kind: "webhook", run_id: run.run_id });
    expect(verify(secret, headers, body)).toBe(true);
    expect(verify(secret, headers, tampered(body))).toBe(false);
    expect(verify(secret, headers, tampered(body, body.length - 2))).toBe(false);
    expect(verify(`whsec_${randomBytes(32).toString("base64")}`, headers, body)).toBe(false);
  });

  it("a retried delivery keeps its webhook-id and gets a new timestamp and signature", async () => {
    // Retries over a second apart, so the second attempt's timestamp (whole seconds) is a later one.
    await start({ signed: true, backoffMs: 1100 });
    const hook = await receiver(1);
    cleanups.push(hook.close);
    await runWith(hook.url);
    await eventually(async () => hook.attempts.length === 2, 10_000);
    const [first, second] = hook.attempts as [Attempt, Attempt];
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(Number(second.headers["webhook-timestamp"])).toBeGreaterThan(Number(first.headers["webhook-timestamp"]));
    expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"]);
    for (const attempt of [first, second]) expect(verify(secret, attempt.headers, attempt.body)).toBe(true);
    // A signature is bound to its own timestamp: the first one does not pass with the second's headers.
    expect(verify(secret, { ...second.headers, "webhook-signature": first.headers["webhook-signature"] }, second.body)).toBe(false);
  });

  it("signs a relative webhook delivered in-process too", async () => {
    const received: { headers: Headers; body: Buffer }[] = [];
    await start({
      signed: true,
      loopback: async (request) => {
        received.push({ headers: request.headers, body: Buffer.from(await request.arrayBuffer()) });
        return new Response(null, { status: 204 });
      },
    });
    await runWith("/hooks/done");
    await eventually(async () => received.length === 1);
    const [{ headers, body }] = received as [{ headers: Headers; body: Buffer }];
    expect(verify(secret, headers, body)).toBe(true);
    expect(verify(secret, headers, tampered(body))).toBe(false);
  });

  it("sends no signature headers without a secret", async () => {
    await start({ signed: false });
    const hook = await receiver();
    cleanups.push(hook.close);
    const run = await runWith(hook.url);
    await eventually(async () => hook.attempts.length === 1);
    const [{ headers, body }] = hook.attempts as [Attempt];
    expect(JSON.parse(body.toString("utf8"))).toMatchObject({ run_id: run.run_id });
    for (const name of SIGNATURE_HEADERS) expect(headers[name]).toBeUndefined();
  });
});
