import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClaimedRun, Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";

/**
 * A rollback that arrives while the run's claim is on its way back from storage (the row is already
 * `running` there, the worker does not hold it yet) still erases the run. The gap is widened here by
 * holding the claim's answer until the cancel has been issued; on PostgreSQL it occurs by itself.
 */
describe.each(drivers)("rollback while a claim is in flight ($name)", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  let holdClaims: Promise<void> | undefined;
  let claimHeld: (run: ClaimedRun) => void = () => undefined;

  beforeEach(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    const runs = Object.create(opened.storage.runs) as Storage["runs"];
    // Queued, not claimed by their admission: these runs reach their worker through claimNext.
    runs.create = (input, options) => opened.storage.runs.create(input, { ...options, claim: undefined });
    runs.claimNext = async (options) => {
      const claimed = await opened.storage.runs.claimNext(options);
      if (claimed && holdClaims) {
        claimHeld(claimed);
        await holdClaims;
      }
      return claimed;
    };
    storage = Object.assign(Object.create(opened.storage) as Storage, { runs });
    engine = await startEngine(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("erases the run and lets the rolling-back run execute", async () => {
    const threadId = await newThread(storage);
    let release!: () => void;
    holdClaims = new Promise((resolve) => (release = resolve));
    const held = new Promise<ClaimedRun>((resolve) => (claimHeld = resolve));
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 } }, { threadId });
    expect((await held).run.run_id).toBe(first.run_id);
    expect((await storage.runs.get(first.run_id))?.status).toBe("running");

    const second = engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "rollback" }, { threadId });
    // Admission cancels the first run before it resolves; give it that time, then let the claim land.
    await new Promise((resolve) => setTimeout(resolve, 100));
    holdClaims = undefined;
    release();
    const admitted = await second;
    expect((await engine.waitRun(admitted.run_id)).status).toBe("success");
    expect(await storage.runs.get(first.run_id)).toBeNull();
  });

  it("a rollback arriving while settlement's combined write is on its way is refused: the run is kept, its thread agrees", async () => {
    if (!storage.runs.settle) return;
    const threadId = await newThread(storage);
    const runs = storage.runs as { settle: NonNullable<Storage["runs"]["settle"]> };
    const settle = runs.settle.bind(storage.runs);
    let release!: () => void;
    const writing = new Promise<void>((resolve) => {
      runs.settle = async (...args) => {
        resolve();
        await new Promise<void>((done) => (release = done));
        return settle(...args);
      };
    });
    const first = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "kept" }] } }, { threadId });
    await writing;
    const cancelled = engine.cancel([first.run_id], { action: "rollback" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await cancelled;
    // Too late to erase: the cancel ends it as an interrupt if that lands first, else it completed. Either
    // way it is kept, and the thread shows what its checkpoints hold.
    const end = await engine.waitRun(first.run_id);
    expect(["success", "interrupted"]).toContain(end.status);
    expect((await storage.runs.get(first.run_id))?.status).toBe(end.status);
    const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
    expect(values.messages.map((m) => m.content)).toEqual(["kept", "echo: kept"]);
  });

  it("a rolled-back running run goes from running to gone: readers never see it interrupted", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 300 } }, { threadId });
    while ((await storage.runs.get(first.run_id))?.status !== "running") await new Promise((resolve) => setTimeout(resolve, 5));
    const seen = new Set<string>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        seen.add((await storage.runs.get(first.run_id))?.status ?? "gone");
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const second = await engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "rollback" }, { threadId });
    expect((await engine.waitRun(second.run_id)).status).toBe("success");
    polling = false;
    await poller;
    expect([...seen].sort()).toEqual(["gone", "running"]);
  });
});
