import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { collect, newThread, startEngine } from "../../test/support/harness.js";
import type { StreamEvent } from "./types.js";

const hello = { messages: [{ role: "user", content: "hello" }] };

function names(events: StreamEvent[]): string[] {
  return events.map((e) => e.event);
}

describe.each(drivers)("engine streaming on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage, { eventTtlMs: 60_000 });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("sends metadata first, then values chunks wire-serialized, numbered from 0", async () => {
    const threadId = await newThread(storage);
    const { run, events } = await engine.streamRun({ assistant_id: "echo", input: hello }, { threadId });
    const all = await collect(events);
    expect(all[0]).toEqual({ id: "0", event: "metadata", data: { run_id: run.run_id, attempt: 1 } });
    // As the official server numbers a run's events (its SSE `id:`), though nothing is kept to replay.
    expect(all.map((e) => e.id)).toEqual(all.map((_, index) => String(index)));
    const values = all.filter((e) => e.event === "values");
    const last = values.at(-1)!.data as { messages: Array<{ type: string; content: string }> };
    expect(last.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "hello"],
      ["ai", "echo: hello"],
    ]);
  });

  it.each([
    ["updates", (e: StreamEvent) => e.event === "updates" && JSON.stringify(e.data).includes("echo: hello")],
    ["custom", (e: StreamEvent) => e.event === "custom" && JSON.stringify(e.data) === JSON.stringify({ progress: "echoing" })],
    ["debug", (e: StreamEvent) => e.event === "debug"],
    ["tasks", (e: StreamEvent) => e.event === "tasks"],
    ["checkpoints", (e: StreamEvent) => e.event === "checkpoints"],
    ["events", (e: StreamEvent) => e.event === "events" && typeof (e.data as { event?: string }).event === "string"],
    ["messages-tuple", (e: StreamEvent) => e.event === "messages"],
  ] as const)("streams the %s mode under the SDK's event name", async (mode, matches) => {
    const threadId = await newThread(storage);
    const { events } = await engine.streamRun({ assistant_id: "echo", input: hello, stream_mode: [mode] }, { threadId });
    const all = await collect(events);
    expect(all[0].event).toBe("metadata");
    expect(all.some(matches)).toBe(true);
    expect(names(all)).not.toContain("values");
  });

  it("emits messages/complete for the messages mode", async () => {
    const threadId = await newThread(storage);
    const { events } = await engine.streamRun({ assistant_id: "echo", input: hello, stream_mode: ["messages"] }, { threadId });
    const complete = (await collect(events)).filter((e) => e.event === "messages/complete");
    const contents = complete.flatMap((e) => e.data as Array<{ content: string }>).map((m) => m.content);
    expect(contents).toContain("echo: hello");
  });

  it("namespaces subgraph chunks as mode|ns with stream_subgraphs", async () => {
    const threadId = await newThread(storage);
    const { events } = await engine.streamRun(
      { assistant_id: "parent", input: hello, stream_mode: ["updates"], stream_subgraphs: true },
      { threadId },
    );
    const all = names(await collect(events));
    expect(all).toContain("updates");
    expect(all.some((n) => /^updates\|child:/.test(n))).toBe(true);
  });

  it("sends an error event when the graph fails", async () => {
    const threadId = await newThread(storage);
    const { events } = await engine.streamRun({ assistant_id: "failing", input: hello }, { threadId });
    const last = (await collect(events)).at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({ message: "graph failed on purpose" });
  });

  it("lets another caller join a live run's stream", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "slow", input: { delayMs: 300 }, stream_mode: ["updates"] }, { threadId });
    const joined = await collect(engine.joinStream(run.run_id, { threadId }));
    expect(joined.filter((e) => e.event === "updates")).toHaveLength(2);
    expect((await storage.runs.get(run.run_id))?.status).toBe("success");
  });

  it("replays a resumable stream after Last-Event-ID, and not after the events expire", async () => {
    const threadId = await newThread(storage);
    const { run, events } = await engine.streamRun(
      { assistant_id: "slow", input: { delayMs: 20 }, stream_mode: ["updates"], stream_resumable: true },
      { threadId },
    );
    const live = await collect(events);
    expect(live.every((e) => typeof e.id === "string")).toBe(true);
    const ids = live.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const all = await collect(engine.joinStream(run.run_id, { threadId, lastEventId: "-1" }));
    expect(all).toEqual(live);
    const afterFirst = await collect(engine.joinStream(run.run_id, { threadId, lastEventId: live[0].id }));
    expect(afterFirst).toEqual(live.slice(1));

    // Stored beside them: a mark per root checkpoint, which no client is sent (checkpoint-marks.ts).
    const stored = await storage.events.list(run.run_id);
    expect(stored.filter((e) => e.event !== "__checkpoint__").map((e) => e.id)).toEqual(live.map((e) => e.id));
    expect(stored.filter((e) => e.event === "__checkpoint__")).toHaveLength(4);
    const expired = await storage.events.deleteExpired(new Date(Date.now() + 120_000).toISOString());
    expect(expired).toBe(stored.length);
    expect(await collect(engine.joinStream(run.run_id, { threadId, lastEventId: "-1" }))).toEqual([]);
  });

  it("keeps no events of a non-resumable run", async () => {
    const threadId = await newThread(storage);
    const { run, events } = await engine.streamRun({ assistant_id: "echo", input: hello }, { threadId });
    expect((await collect(events)).length).toBeGreaterThan(1);
    expect(await storage.events.list(run.run_id)).toEqual([]);
  });
});
