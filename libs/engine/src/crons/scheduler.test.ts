import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import { nextRunDate } from "./scheduler.js";

describe("nextRunDate", () => {
  it("evaluates schedules in UTC and honours end_time", () => {
    expect(nextRunDate("0 * * * *", "2026-01-01T10:15:00.000Z")).toBe("2026-01-01T11:00:00.000Z");
    expect(nextRunDate("30 2 * * *", "2026-01-01T10:15:00.000Z")).toBe("2026-01-02T02:30:00.000Z");
    expect(nextRunDate("0 * * * *", "2026-01-01T10:15:00.000Z", "2026-01-01T10:30:00.000Z")).toBeNull();
    expect(() => nextRunDate("not a cron", "2026-01-01T00:00:00.000Z")).toThrow(InvalidInputError);
  });
});

describe.each(drivers)("crons on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    ({ storage, dispose } = opened);
    engine = await startEngine(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("fires a due thread cron exactly once per tick, through normal admission", async () => {
    const threadId = await newThread(storage);
    const assistantId = engine.registry.resolveAssistantId("echo");
    await storage.crons.create({
      cron_id: crypto.randomUUID(),
      assistant_id: assistantId,
      thread_id: threadId,
      schedule: "0 0 * * *",
      payload: { input: { messages: [{ role: "user", content: "tick" }] } },
      next_run_date: new Date(Date.now() - 1000).toISOString(),
    });
    // Two engines racing for the same tick (as two processes would): one run only.
    const other = await startEngine(storage);
    try {
      await Promise.all([engine.crons.tick(), other.crons.tick()]);
      await Promise.all([engine.crons.tick(), other.crons.tick()]);
    } finally {
      await other.stop(1000);
    }
    const runs = await storage.runs.search({ thread_id: threadId });
    expect(runs).toHaveLength(1);
    expect((await engine.waitRun(runs[0].run_id)).status).toBe("success");
    const [cron] = await storage.crons.search({ thread_id: threadId });
    expect(Date.parse(cron.next_run_date!)).toBeGreaterThan(Date.now());
  });

  it("fires a stateless cron on a new thread", async () => {
    await storage.crons.create({
      cron_id: crypto.randomUUID(),
      assistant_id: engine.registry.resolveAssistantId("echo"),
      schedule: "*/5 * * * *",
      payload: { input: { messages: [] }, on_completion: "keep" },
      next_run_date: new Date(Date.now() - 1000).toISOString(),
    });
    await engine.crons.tick();
    const runs = await eventually(async () => {
      const found = await storage.runs.search({ status: ["pending", "running", "success"] });
      return found.length === 1 ? found : undefined;
    });
    expect((await engine.waitRun(runs[0].run_id)).status).toBe("success");
  });

  it("runs a tick as the cron's creator, whatever identity its payload config names", async () => {
    const threadId = await newThread(storage);
    await storage.crons.create({
      cron_id: crypto.randomUUID(),
      assistant_id: engine.registry.resolveAssistantId("whoami"),
      thread_id: threadId,
      schedule: "0 0 * * *",
      user_id: "bob",
      payload: {
        input: { messages: [] },
        config: { configurable: { langgraph_auth_user: { identity: "alice" }, langgraph_auth_user_id: "alice" } },
      },
      next_run_date: new Date(Date.now() - 1000).toISOString(),
    });
    await engine.crons.tick();
    const [run] = await storage.runs.search({ thread_id: threadId });
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
    expect(values.messages.at(-1)?.content).toBe("bob");
    expect((run.kwargs.config as { configurable: Record<string, unknown> }).configurable.langgraph_auth_user_id).toBe("bob");
  });
});
