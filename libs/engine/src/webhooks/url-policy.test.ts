import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Delivery, OutboundUrlPolicy, Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { outboundUrlPolicy } from "../config/webhooks.js";
import { eventually } from "../../test/support/harness.js";
import type { ResolveHost } from "./guarded-post.js";
import { WebhookOutbox } from "./outbox.js";

const sqlite = drivers.find((driver) => driver.name === "sqlite")!;
const DEV = outboundUrlPolicy(undefined, "dev");
const SERVE = outboundUrlPolicy(undefined, "serve");

interface Receiver {
  port: number;
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback; `redirectTo` makes it answer 302 with that Location. */
async function receiver(redirectTo?: string): Promise<Receiver> {
  const requests: Receiver["requests"] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests.push({ path: req.url ?? "", headers: req.headers });
      if (redirectTo) res.writeHead(302, { location: redirectTo }).end();
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("webhook URL policy at send time (real HTTP on loopback, SQLite outbox)", () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  const receivers: Receiver[] = [];
  const outboxes: WebhookOutbox[] = [];
  const refused: { delivery: Delivery; reason: string }[] = [];

  beforeEach(async () => {
    ({ storage, dispose } = await sqlite.open());
  });

  afterEach(async () => {
    await Promise.all(outboxes.splice(0).map((outbox) => outbox.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    refused.length = 0;
    await dispose();
  });

  function outbox(urlPolicy: OutboundUrlPolicy, resolveHost?: ResolveHost): WebhookOutbox {
    const created = new WebhookOutbox(
      storage,
      { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 },
      { urlPolicy, resolveHost, onRefused: (delivery, reason) => refused.push({ delivery, reason }) },
    );
    outboxes.push(created);
    return created;
  }

  async function listening(redirectTo?: string): Promise<Receiver> {
    const started = await receiver(redirectTo);
    receivers.push(started);
    return started;
  }

  async function settled(deliveryId: string): Promise<Delivery> {
    return eventually(async () => {
      const delivery = await storage.deliveries.get(deliveryId);
      return delivery && delivery.status !== "pending" ? delivery : undefined;
    });
  }

  it("dev delivers to a loopback receiver", async () => {
    const hook = await listening();
    await outbox(DEV).enqueue({ kind: "webhook", url: hook.url, payload: { run_id: "r1" }, deliveryId: "d-dev" });
    expect((await settled("d-dev")).status).toBe("delivered");
    expect(hook.requests).toHaveLength(1);
  });

  it("serve refuses a loopback receiver without sending, once, saying why", async () => {
    const hook = await listening();
    for (const [id, url] of [
      ["d-literal", hook.url],
      ["d-localhost", `http://localhost:${hook.port}/hook`],
      ["d-mapped", `http://[::ffff:127.0.0.1]:${hook.port}/hook`],
      ["d-decimal", `http://2130706433:${hook.port}/hook`],
    ]) {
      await outbox(SERVE).enqueue({ kind: "webhook", url, payload: { run_id: "r1" }, deliveryId: id });
      const delivery = await settled(id);
      expect(delivery).toMatchObject({ status: "failed", attempts: 1, payload: null });
      expect(delivery.last_error).toMatch(/^refused by the webhook URL policy: host .* is a loopback address$/);
    }
    expect(hook.requests).toHaveLength(0);
    expect(refused.map(({ delivery }) => delivery.delivery_id).sort()).toEqual(["d-decimal", "d-literal", "d-localhost", "d-mapped"]);
  });

  it("checks every address a name resolves to, and connects to the checked address", async () => {
    const hook = await listening();
    const lookups: string[] = [];
    const resolveTo =
      (...addresses: string[]): ResolveHost =>
      async (hostname) => {
        lookups.push(hostname);
        return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      };
    const url = `http://hooks.example.test:${hook.port}/named`;

    // dev: the name resolves to loopback, which dev allows; the POST goes to that address with the name as Host.
    await outbox(DEV, resolveTo("127.0.0.1")).enqueue({ kind: "webhook", url, payload: {}, deliveryId: "d-name-dev" });
    expect((await settled("d-name-dev")).status).toBe("delivered");
    expect(hook.requests.map((r) => [r.path, r.headers.host])).toEqual([["/named", `hooks.example.test:${hook.port}`]]);
    expect(lookups).toEqual(["hooks.example.test"]);

    // serve: the same name is refused at send time, without a request and without retries.
    await outbox(SERVE, resolveTo("127.0.0.1")).enqueue({ kind: "webhook", url, payload: {}, deliveryId: "d-name-serve" });
    const inServe = await settled("d-name-serve");
    expect(inServe).toMatchObject({ status: "failed", attempts: 1 });
    expect(inServe.last_error).toMatch(/host hooks\.example\.test resolves to 127\.0\.0\.1 is a loopback address/);

    // One metadata address among the answers refuses the delivery even in dev (a resolver may hand out either).
    await outbox(DEV, resolveTo("127.0.0.1", "::ffff:169.254.169.254")).enqueue({
      kind: "a2a_push",
      url,
      payload: "{}",
      deliveryId: "d-mixed",
    });
    const mixed = await settled("d-mixed");
    expect(mixed).toMatchObject({ status: "failed", attempts: 1 });
    expect(mixed.last_error).toMatch(/169\.254\.169\.254 is a link-local or cloud metadata address/);
    expect(hook.requests).toHaveLength(1);
  });

  it("does not follow a redirect (a receiver cannot bounce the POST elsewhere)", async () => {
    const target = await listening();
    const bouncer = await listening(`${target.url}?bounced`);
    await outbox(DEV).enqueue({ kind: "webhook", url: bouncer.url, payload: {}, deliveryId: "d-redirect" });
    const delivery = await eventually(async () => {
      const current = await storage.deliveries.get("d-redirect");
      return current?.last_error ? current : undefined;
    });
    expect(delivery.last_error).toBe("HTTP 302 (redirects are not followed)");
    expect(bouncer.requests.length).toBeGreaterThanOrEqual(1);
    expect(target.requests).toHaveLength(0);
  });

  it("refuses at send time what was written under a looser policy (a restart from dev to serve)", async () => {
    const hook = await listening();
    // Written while nothing sends it (as if the dev server stopped before delivering), then sent by serve.
    await storage.deliveries.enqueue({ delivery_id: "d-old", kind: "webhook", url: hook.url, payload: { run_id: "r" }, run_id: null });
    await outbox(SERVE).kick();
    expect(await settled("d-old")).toMatchObject({ status: "failed", attempts: 1 });
    expect(hook.requests).toHaveLength(0);
  });

  it("tells the API which URLs to refuse before anything is written", () => {
    expect(outbox(SERVE).urlRefusal("http://169.254.169.254/latest/meta-data/")).toMatch(/link-local/);
    expect(outbox(SERVE).urlRefusal("http://127.0.0.1:9/hook")).toMatch(/loopback/);
    expect(outbox(DEV).urlRefusal("http://127.0.0.1:9/hook")).toBeUndefined();
    expect(outbox(SERVE).urlRefusal("/hooks/done")).toBeUndefined();
    expect(outbox(SERVE).urlRefusal("https://hooks.example.com/done")).toBeUndefined();
  });
});
