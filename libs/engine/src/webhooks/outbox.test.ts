import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

/** A loopback receiver that answers 500 to the first `failures` requests, then 200. */
async function receiver(failures: number): Promise<{ url: string; bodies: unknown[]; attempts: () => number; close: () => Promise<void> }> {
  const bodies: unknown[] = [];
  let attempts = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      attempts += 1;
      if (attempts <= failures) {
        res.writeHead(500).end("not yet");
        return;
      }
      bodies.push(JSON.parse(body));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    attempts: () => attempts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.each(drivers)("webhooks on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  let reopen: (() => Promise<Storage>) | undefined;

  beforeEach(async () => {
    const opened = await driver.open();
    ({ storage, dispose, reopen } = opened);
    engine = await startEngine(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("posts the run payload on completion, retrying a failing receiver until it recovers", async () => {
    const hook = await receiver(2);
    try {
      const threadId = await newThread(storage);
      const run = await engine.createRun(
        { assistant_id: "echo", input: { messages: [{ role: "user", content: "hook" }] }, webhook: hook.url },
        { threadId },
      );
      await engine.waitRun(run.run_id);
      await eventually(async () => hook.bodies.length === 1);
      expect(hook.attempts()).toBe(3);
      const body = hook.bodies[0] as Record<string, unknown>;
      expect(body).toMatchObject({ run_id: run.run_id, thread_id: threadId, status: "success" });
      expect(JSON.stringify(body.values)).toContain("echo: hook");
      expect(typeof body.webhook_sent_at).toBe("string");
      const [delivery] = await eventually(async () => {
        const due = await storage.deliveries.claimDue({ now: new Date(Date.now() + 3_600_000).toISOString(), limit: 10, leaseMs: 1 });
        return due.length === 0 ? ["none"] : undefined;
      });
      expect(delivery).toBe("none");
    } finally {
      await hook.close();
    }
  });

  if (driver.name !== "memory")
    it("keeps an undelivered webhook across a restart and delivers it afterwards", async () => {
      // Nothing listens on this port yet: every attempt fails until the receiver comes up after the restart.
      const probe = await receiver(0);
      const url = probe.url;
      await probe.close();
      const threadId = await newThread(storage);
      const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, webhook: url }, { threadId });
      await engine.waitRun(run.run_id);
      await engine.stop(0);

      storage = await reopen!();
      const port = Number(new URL(url).port);
      const bodies: unknown[] = [];
      const server = createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          bodies.push(JSON.parse(body));
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
      try {
        engine = await startEngine(storage);
        await eventually(async () => bodies.length === 1, 15_000);
        expect(bodies[0]).toMatchObject({ run_id: run.run_id });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
});
