import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import type { StreamEvent } from "../streaming/types.js";
import { collect, eventually, newThread, startEngine } from "../../test/support/harness.js";

/**
 * What the HTTP layer needs from the engine beyond runs themselves: admission separated from the wait
 * (so errors get a status code before a long response starts), stream subscriptions a gone client can
 * end, thread metadata for threads admission creates, and the error of a run that ended before anyone
 * waited.
 */
describe.each(drivers)("engine support for the HTTP layer on $name", (driver) => {
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

  it("createRunWatched: rejects admission errors itself, and hands back the end of an admitted run", async () => {
    await expect(engine.createRunWatched({ assistant_id: "nope" }, { threadId: await newThread(storage) })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const { run, end } = await engine.createRunWatched({ assistant_id: "echo", input: { messages: [] } });
    expect(run.status).toBe("pending");
    // A stateless run: its temporary thread (and the run) are gone at the end, yet the end is seen.
    expect((await end).status).toBe("success");
  });

  it("createRunWatched with stream: the run's events from its first one, and its end; an admission error subscribes nothing", async () => {
    const threadId = await newThread(storage);
    const { run, end, events } = await engine.createRunWatched(
      { assistant_id: "chat", input: { messages: [{ role: "user", content: "hi" }] }, stream_mode: ["messages-tuple"] },
      { threadId },
      { stream: true },
    );
    const received = await collect(events!);
    // Subscribed before the run could start: nothing is missed, from `metadata` on; the stream ends with the run.
    expect(received[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id } });
    const tokens = received.filter((e) => e.event === "messages").map((e) => (e.data as [{ content: string }])[0].content);
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join("")).toBe("You said: hi.");
    expect((await end).status).toBe("success");
    // Without `stream`, no events are handed back.
    const plain = await engine.createRunWatched({ assistant_id: "echo", input: { messages: [] } }, { threadId });
    expect(plain.events).toBeUndefined();
    expect((await plain.end).status).toBe("success");
    await expect(
      engine.createRunWatched({ assistant_id: "nope" }, { threadId, runId: crypto.randomUUID() }, { stream: true }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const hub = engine.hub as unknown as { subscribers: Map<string, unknown> };
    expect(hub.subscribers.size).toBe(0);
  });

  it("createRunWatched with stream: closing the events ends them early, the run goes on", async () => {
    const threadId = await newThread(storage);
    const { run, end, events } = await engine.createRunWatched(
      { assistant_id: "chat", input: { messages: [{ role: "user", content: "a long enough question" }], delayMs: 20 } },
      { threadId },
      { stream: true },
    );
    const received: StreamEvent[] = [];
    for await (const event of events!) {
      received.push(event);
      if (received.length === 1) events!.close();
    }
    expect(received).toHaveLength(1);
    expect((await storage.runs.get(run.run_id))?.status).toBe("running");
    expect((await end).status).toBe("success");
  });

  it("joinStream and streamRun end when their signal aborts, without touching the run", async () => {
    const threadId = await newThread(storage);
    const abort = new AbortController();
    const { run, events } = await engine.streamRun(
      { assistant_id: "slow", input: { delayMs: 1500 } },
      { threadId },
      { signal: abort.signal },
    );
    const joinAbort = new AbortController();
    const joined = collect(engine.joinStream(run.run_id, { threadId, signal: joinAbort.signal }));
    const streamed = collect(events);
    await eventually(async () => (await storage.runs.get(run.run_id))?.status === "running");
    abort.abort();
    joinAbort.abort();
    await streamed;
    await joined;
    // Both streams ended while the run still executes.
    expect((await storage.runs.get(run.run_id))?.status).toBe("running");
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
  });

  it("stamps threads that admission creates with the graph, the assistant and the run's metadata", async () => {
    const threadId = crypto.randomUUID();
    await engine.createRun(
      { assistant_id: "echo", input: { messages: [] }, if_not_exists: "create", metadata: { owner: "a" } },
      { threadId },
    );
    expect((await storage.threads.get(threadId))?.metadata).toMatchObject({ graph_id: "echo", owner: "a" });
    const stateless = await engine.createRun({
      assistant_id: "echo",
      input: { messages: [] },
      on_completion: "keep",
      metadata: { owner: "b" },
    });
    expect((await storage.threads.get(stateless.thread_id))?.metadata).toMatchObject({ graph_id: "echo", owner: "b" });
  });

  it("waitRun of a run that already failed reports its error from the thread", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "failing", input: { messages: [] } }, { threadId });
    await eventually(async () => (await storage.runs.get(run.run_id))?.status === "error");
    await eventually(async () => (await storage.threads.get(threadId))?.status === "error");
    const end = await engine.waitRun(run.run_id);
    expect(end).toMatchObject({ status: "error", error: { message: "graph failed on purpose" } });
  });
});
