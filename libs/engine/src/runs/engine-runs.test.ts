import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

describe.each(drivers)("engine runs on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("runs a graph to success and keeps its values on the thread", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } }, { threadId });
    expect(run.status).toBe("pending");
    const end = await engine.waitRun(run.run_id);
    expect(end.status).toBe("success");
    const thread = await storage.threads.get(threadId);
    expect(thread?.status).toBe("idle");
    const messages = (thread?.values as { messages: Array<{ content: string; type: string }> }).messages;
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "hi"],
      ["ai", "echo: hi"],
    ]);
    expect((await storage.runs.get(run.run_id))?.status).toBe("success");
  });

  it("accepts a graph name or the system assistant id, and 404s unknown ones", async () => {
    const assistant = await storage.assistants.get(engine.registry.resolveAssistantId("echo"));
    expect(assistant).toMatchObject({ graph_id: "echo", metadata: { created_by: "system" } });
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: assistant!.assistant_id, input: { messages: [] } }, { threadId });
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    await expect(engine.createRun({ assistant_id: "nope" }, { threadId })).rejects.toThrow(NotFoundError);
    await expect(engine.createRun({ assistant_id: "echo" }, { threadId: crypto.randomUUID() })).rejects.toThrow(NotFoundError);
  });

  it("creates the thread with if_not_exists=create", async () => {
    const threadId = crypto.randomUUID();
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, if_not_exists: "create" }, { threadId });
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    expect(await storage.threads.get(threadId)).not.toBeNull();
  });

  it("stops at interrupt() (run success, thread interrupted) and resumes with a Command", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "approval", input: { request: "deploy" } }, { threadId });
    expect((await engine.waitRun(first.run_id)).status).toBe("success");
    const interrupted = await storage.threads.get(threadId);
    expect(interrupted?.status).toBe("interrupted");
    const pending = Object.values(interrupted!.interrupts).flat();
    expect(pending[0]?.value).toEqual({ question: "approve deploy?" });

    const resume = await engine.createRun({ assistant_id: "approval", command: { resume: "yes" } }, { threadId });
    expect((await engine.waitRun(resume.run_id)).status).toBe("success");
    const done = await storage.threads.get(threadId);
    expect(done?.status).toBe("idle");
    expect(done?.values).toMatchObject({ request: "deploy", decision: "yes" });
    expect(done?.interrupts).toEqual({});
  });

  it("settles a failing graph as error with the thread in error", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "failing", input: { messages: [] } }, { threadId });
    const end = await engine.waitRun(run.run_id);
    expect(end.status).toBe("error");
    expect(end.error?.message).toContain("graph failed on purpose");
    expect((await storage.threads.get(threadId))?.status).toBe("error");
  });

  it("multitask reject: refuses a second run while one is in flight, creating nothing", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 300 } }, { threadId });
    await expect(
      engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "reject" }, { threadId }),
    ).rejects.toThrow(ConflictError);
    expect(await storage.runs.search({ thread_id: threadId })).toHaveLength(1);
    expect((await engine.waitRun(first.run_id)).status).toBe("success");
  });

  it("multitask interrupt: the running run ends interrupted, the new one succeeds", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 2000 } }, { threadId });
    await eventually(async () => (await storage.runs.get(first.run_id))?.status === "running");
    const second = await engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "interrupt" }, { threadId });
    expect((await engine.waitRun(second.run_id)).status).toBe("success");
    expect((await storage.runs.get(first.run_id))?.status).toBe("interrupted");
  });

  it("multitask rollback: the running run is erased with its checkpoints, not left as error", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 400 } }, { threadId });
    // Let the first step finish so the run has written checkpoints of its own.
    await eventually(async () => {
      const states = [];
      for await (const t of storage.checkpointer.list({ configurable: { thread_id: threadId } })) states.push(t);
      return states.length >= 3;
    });
    const second = await engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "rollback" }, { threadId });
    expect((await engine.waitRun(second.run_id)).status).toBe("success");
    expect(await storage.runs.get(first.run_id)).toBeNull();
    for await (const tuple of storage.checkpointer.list({ configurable: { thread_id: threadId } })) {
      expect((tuple.metadata as Record<string, unknown> | undefined)?.run_id).not.toBe(first.run_id);
    }
    const thread = await storage.threads.get(threadId);
    expect(thread?.values).toMatchObject({ steps: [1, 2] });
  });

  it("multitask enqueue: the second run waits for the first, then runs", async () => {
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 } }, { threadId });
    const second = await engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "enqueue" }, { threadId });
    expect((await engine.waitRun(second.run_id)).status).toBe("success");
    expect((await storage.runs.get(first.run_id))?.status).toBe("success");
    const thread = await storage.threads.get(threadId);
    expect(thread?.values).toMatchObject({ steps: [1, 2, 1, 2] });
  });

  it("cancels a run during execution (interrupted) and a pending one before it starts", async () => {
    const threadId = await newThread(storage);
    const running = await engine.createRun({ assistant_id: "slow", input: { delayMs: 2000 } }, { threadId });
    const queued = await engine.createRun({ assistant_id: "slow", input: { delayMs: 10 }, multitask_strategy: "enqueue" }, { threadId });
    await eventually(async () => (await storage.runs.get(running.run_id))?.status === "running");
    await engine.cancel([queued.run_id], { threadId });
    expect((await storage.runs.get(queued.run_id))?.status).toBe("interrupted");
    const started = Date.now();
    await engine.cancel([running.run_id], { action: "interrupt" });
    expect((await engine.waitRun(running.run_id)).status).toBe("interrupted");
    expect(Date.now() - started).toBeLessThan(1500);
    await eventually(async () => (await storage.threads.get(threadId))?.status === "idle");
  });

  it("stateless runs delete their temporary thread unless on_completion=keep", async () => {
    const { run, end } = await engine.createRunAndWait({ assistant_id: "echo", input: { messages: [{ role: "user", content: "x" }] } });
    expect(end.status).toBe("success");
    expect(JSON.stringify(end.values)).toContain("echo: x");
    expect(await storage.threads.get(run.thread_id)).toBeNull();
    const kept = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, on_completion: "keep" });
    await engine.waitRun(kept.run_id);
    expect(await storage.threads.get(kept.thread_id)).not.toBeNull();
  });

  it("defers a run with after_seconds", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, after_seconds: 0.5 }, { threadId });
    await new Promise((r) => setTimeout(r, 200));
    expect((await storage.runs.get(run.run_id))?.status).toBe("pending");
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
  });
});
