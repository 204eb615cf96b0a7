import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import type { EngineObserver } from "./index.js";

type Seen = [hook: string, ...facts: unknown[]];

/** An observer that writes down every call, with the facts a metric would take from it. */
function recorder(): { observer: EngineObserver; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    observer: {
      runAdmitted: (run, graph) => seen.push(["admitted", run.run_id, graph]),
      runStarted: (run, graph, attempt, queueWaitMs) => seen.push(["started", run.run_id, graph, attempt, queueWaitMs]),
      runEnded: (run, status, graph, durationMs) => seen.push(["ended", run.run_id, graph, status, durationMs]),
      runRequeued: (reason) => seen.push(["requeued", reason]),
      deliveryFinished: (kind, outcome) => seen.push(["delivery", kind, outcome]),
    },
  };
}

describe.each(drivers)("EngineObserver on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  let record: ReturnType<typeof recorder>;

  beforeEach(async () => {
    ({ storage, dispose } = await driver.open());
    record = recorder();
    engine = await startEngine(storage, { observer: record.observer });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("sees a run admitted, started (with its queue wait) and ended (with its duration), once each, before waitRun returns", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
    const end = await engine.waitRun(run.run_id);
    expect(end.status).toBe("success");
    const ofRun = record.seen.filter((entry) => entry[1] === run.run_id);
    expect(ofRun.map(([hook]) => hook)).toEqual(["admitted", "started", "ended"]);
    expect(ofRun[0]).toEqual(["admitted", run.run_id, "echo"]);
    expect(ofRun[1]).toEqual(["started", run.run_id, "echo", 1, expect.any(Number)]);
    expect(ofRun[2]).toEqual(["ended", run.run_id, "echo", "success", expect.any(Number)]);
    expect(engine.executingRuns).toBeLessThanOrEqual(1);
    await eventually(async () => engine.executingRuns === 0);
    expect(await storage.runs.countPending?.()).toBe(0);
  });

  it("a run cancelled while pending ends interrupted without a duration, and counts as pending until then", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, after_seconds: 3600 }, { threadId });
    expect(await storage.runs.countPending?.()).toBe(1);
    await engine.cancel([run.run_id]);
    expect(record.seen.filter((entry) => entry[1] === run.run_id)).toEqual([
      ["admitted", run.run_id, "echo"],
      ["ended", run.run_id, "echo", "interrupted", undefined],
    ]);
    expect(await storage.runs.countPending?.()).toBe(0);
  });

  it("webhook deliveries: each failed attempt is retried, the last one failed; a receiver that answers is delivered", async () => {
    let answer = 500;
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(answer).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const deliveries = () => record.seen.filter(([hook]) => hook === "delivery").map(([, kind, outcome]) => `${kind}:${outcome}`);
    try {
      const failing = await engine.createRun(
        { assistant_id: "echo", input: { messages: [] }, webhook: url },
        { threadId: await newThread(storage) },
      );
      await engine.waitRun(failing.run_id);
      // The harness's outbox gives up after 5 attempts.
      await eventually(async () => deliveries().includes("webhook:failed"));
      expect(deliveries()).toEqual([...Array(4).fill("webhook:retried"), "webhook:failed"]);
      answer = 204;
      const delivered = await engine.createRun(
        { assistant_id: "echo", input: { messages: [] }, webhook: url },
        { threadId: await newThread(storage) },
      );
      await engine.waitRun(delivered.run_id);
      await eventually(async () => deliveries().includes("webhook:delivered"));
      expect(deliveries().slice(5)).toEqual(["webhook:delivered"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a run a shutdown hands back is reported requeued (drained or shutdown), not ended", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "slow", input: { delayMs: 2000 } }, { threadId });
    await eventually(async () => record.seen.some(([hook, id]) => hook === "started" && id === run.run_id));
    await engine.stop(0, 0);
    expect(record.seen.filter(([hook]) => hook === "requeued").map(([, reason]) => reason)).toEqual([
      expect.stringMatching(/^(drained|shutdown)$/),
    ]);
    expect(record.seen.some(([hook, id]) => hook === "ended" && id === run.run_id)).toBe(false);
    expect(await storage.runs.countPending?.()).toBe(1);
  });
});
