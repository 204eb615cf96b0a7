import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextRunDate, systemAssistantId } from "@agent-server/engine";
import { eventually } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer, rawJson } from "../../test/support/http.js";

const EVERY_5_MIN = "*/5 * * * *";
const hello = { messages: [{ role: "user", content: "tick" }] };

describe.each(httpDrivers)("crons API on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
  });
  afterAll(() => server.close());

  const newThread = async (metadata: Record<string, unknown> = {}) =>
    (await server.storage.threads.create({ thread_id: crypto.randomUUID(), metadata })).thread_id;

  it("creates stateless and thread crons shaped as the SDK's Cron", async () => {
    const { client } = server;
    const before = new Date().toISOString();
    const stateless = await client.crons.create("echo", {
      schedule: EVERY_5_MIN,
      input: hello,
      metadata: { k: "v" },
      onRunCompleted: "keep",
    });
    expect(stateless).toMatchObject({
      assistant_id: systemAssistantId("echo"),
      thread_id: null,
      schedule: EVERY_5_MIN,
      timezone: null,
      end_time: null,
      user_id: null,
      enabled: true,
      on_run_completed: "keep",
      metadata: { k: "v" },
      payload: { input: hello, metadata: { k: "v" }, on_completion: "keep" },
    });
    expect([nextRunDate(EVERY_5_MIN, before), nextRunDate(EVERY_5_MIN, new Date().toISOString())]).toContain(stateless.next_run_date);

    const threadId = await newThread();
    const threadCron = await client.crons.createForThread(threadId, "echo", { schedule: "0 9 * * 1", input: hello, timezone: "UTC" });
    expect(threadCron).toMatchObject({ thread_id: threadId, schedule: "0 9 * * 1", payload: { input: hello } });
    expect(threadCron.payload).not.toHaveProperty("on_completion");
    expect(new Date(threadCron.next_run_date!).getUTCDay()).toBe(1);
    expect(new Date(threadCron.next_run_date!).getUTCHours()).toBe(9);
  });

  it("404s unknown assistants and threads; 422s bad schedules, timezones and bodies", async () => {
    const { client, url } = server;
    await expectHttpError(client.crons.create(crypto.randomUUID(), { schedule: EVERY_5_MIN }), 404, /Assistant/);
    await expectHttpError(client.crons.createForThread(crypto.randomUUID(), "echo", { schedule: EVERY_5_MIN }), 404, /Thread/);
    await expectHttpError(client.crons.create("echo", { schedule: "every tuesday" }), 422, /schedule/);
    await expectHttpError(client.crons.create("echo", { schedule: "61 * * * *" }), 422, /schedule/);
    await expectHttpError(client.crons.create("echo", { schedule: "* * * * * *" }), 422, /^schedule: expected 5 fields/);
    expect((await client.crons.create("echo", { schedule: "@daily" })).next_run_date).toMatch(/T00:00:00\.000Z$/);
    await expectHttpError(client.crons.create("echo", { schedule: EVERY_5_MIN, timezone: "Europe/Paris" }), 422, /^timezone/);
    await expectHttpError(client.crons.create("echo", { schedule: EVERY_5_MIN, endTime: "tomorrow" }), 422, /^end_time/);
    const missing = await rawJson(`${url}/runs/crons`, "POST", { assistant_id: "echo" });
    expect(missing.status).toBe(422);
    expect((missing.json as { detail: string }).detail).toMatch(/^schedule/);
    const badMode = await rawJson(`${url}/runs/crons`, "POST", { assistant_id: "echo", schedule: EVERY_5_MIN, stream_mode: "loud" });
    expect(badMode.status).toBe(422);
    expect((badMode.json as { detail: string }).detail).toMatch(/^stream_mode/);
    const badSearch = await rawJson(`${url}/runs/crons/search`, "POST", { sort_by: "mood" });
    expect(badSearch.status).toBe(422);
    expect((badSearch.json as { detail: string }).detail).toMatch(/^sort_by/);
  });

  it("searches and counts by assistant, thread, metadata and enabled, with sorting, paging and select", async () => {
    const { client } = server;
    const assistant = await client.assistants.create({ graphId: "echo" });
    const threadId = await newThread();
    const a = await client.crons.create(assistant.assistant_id, { schedule: "1 * * * *", metadata: { team: "red" } });
    const b = await client.crons.createForThread(threadId, assistant.assistant_id, { schedule: "2 * * * *", metadata: { team: "blue" } });
    const c = await client.crons.create(assistant.assistant_id, { schedule: "3 * * * *", metadata: { team: "red" }, enabled: false });

    const all = await client.crons.search({ assistantId: assistant.assistant_id, sortBy: "cron_id", sortOrder: "asc" });
    expect(all.map((x) => x.cron_id)).toEqual([a, b, c].map((x) => x.cron_id).sort());
    expect((await client.crons.search({ threadId })).map((x) => x.cron_id)).toEqual([b.cron_id]);
    const red = await client.crons.search({ assistantId: assistant.assistant_id, metadata: { team: "red" } });
    expect(red.map((x) => x.cron_id).sort()).toEqual([a.cron_id, c.cron_id].sort());
    const enabledRed = await client.crons.search({ assistantId: assistant.assistant_id, metadata: { team: "red" }, enabled: true });
    expect(enabledRed.map((x) => x.cron_id)).toEqual([a.cron_id]);
    const page = await client.crons.search({
      assistantId: assistant.assistant_id,
      limit: 1,
      offset: 1,
      sortBy: "created_at",
      sortOrder: "asc",
    });
    expect(page.map((x) => x.cron_id)).toEqual([b.cron_id]);
    const selected = await client.crons.search({ assistantId: assistant.assistant_id, select: ["cron_id", "schedule"], limit: 1 });
    expect(Object.keys(selected[0]!).sort()).toEqual(["cron_id", "schedule"]);

    expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(3);
    expect(await client.crons.count({ assistantId: assistant.assistant_id, metadata: { team: "blue" } })).toBe(1);
    expect(await client.crons.count({ threadId })).toBe(1);
    expect(await client.crons.count({ assistantId: crypto.randomUUID() })).toBe(0);
  });

  it("updates schedule, end time, enabled, metadata and payload; deletes; 404s unknown crons", async () => {
    const { client } = server;
    const cron = await client.crons.create("echo", { schedule: EVERY_5_MIN, input: hello, metadata: { a: 1 } });
    const before = new Date().toISOString();
    const updated = await client.crons.update(cron.cron_id, {
      schedule: "30 4 * * *",
      input: { messages: [] },
      metadata: { b: 2 },
      onRunCompleted: "keep",
    });
    expect(updated).toMatchObject({
      schedule: "30 4 * * *",
      metadata: { a: 1, b: 2 },
      on_run_completed: "keep",
      payload: { input: { messages: [] }, on_completion: "keep", metadata: { a: 1, b: 2 } },
    });
    expect([nextRunDate("30 4 * * *", before), nextRunDate("30 4 * * *", new Date().toISOString())]).toContain(updated.next_run_date);

    const past = new Date(Date.now() - 60_000).toISOString();
    const ended = await client.crons.update(cron.cron_id, { endTime: past });
    expect(ended.end_time).toBe(past);
    expect(ended.next_run_date).toBeNull();
    const reopened = await client.crons.update(cron.cron_id, { endTime: null, enabled: false });
    expect(reopened).toMatchObject({ end_time: null, enabled: false });
    expect(reopened.next_run_date).not.toBeNull();

    await expectHttpError(client.crons.update(cron.cron_id, { schedule: "nope" }), 422, /schedule/);
    await expectHttpError(client.crons.update(crypto.randomUUID(), { enabled: true }), 404, /Cron/);
    await client.crons.delete(cron.cron_id);
    await expectHttpError(client.crons.delete(cron.cron_id), 404);
    expect(await server.storage.crons.get(cron.cron_id)).toBeNull();
  });

  it("fires due crons through the engine's scheduler: on their thread, or on a kept new thread", async () => {
    const { client, storage, engine } = server;
    const assistant = await client.assistants.create({ graphId: "echo" });
    const threadId = await newThread();
    const onThread = await client.crons.createForThread(threadId, assistant.assistant_id, { schedule: EVERY_5_MIN, input: hello });
    const stateless = await client.crons.create(assistant.assistant_id, { schedule: EVERY_5_MIN, input: hello, onRunCompleted: "keep" });
    const disabled = await client.crons.create(assistant.assistant_id, { schedule: EVERY_5_MIN, input: hello, enabled: false });
    const past = new Date(Date.now() - 1000).toISOString();
    for (const cron of [onThread, stateless, disabled]) await storage.crons.update(cron.cron_id, { next_run_date: past });

    await engine.crons.tick();

    const threadRun = await eventually(async () => {
      const [run] = await storage.runs.search({ thread_id: threadId, status: "success" });
      return run;
    });
    expect(threadRun.assistant_id).toBe(assistant.assistant_id);
    const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
    expect(values.messages.map((m) => m.content)).toEqual(["tick", "echo: tick"]);

    const kept = await eventually(async () => {
      const threads = await storage.threads.search({ metadata: { assistant_id: assistant.assistant_id } });
      const others = threads.filter((t) => t.thread_id !== threadId);
      if (others.length !== 1) return undefined;
      // A new thread is idle before its run is claimed, so wait for the run itself to succeed.
      const [done] = await storage.runs.search({ thread_id: others[0]!.thread_id, status: "success" });
      const thread = done ? await storage.threads.get(others[0]!.thread_id) : null;
      return thread?.status === "idle" ? thread : undefined;
    });
    expect((kept.values as { messages: unknown[] }).messages).toHaveLength(2);

    // Each fired cron moved on to its next tick; the disabled one did not fire.
    expect((await storage.crons.get(onThread.cron_id))!.next_run_date! > past).toBe(true);
    expect((await storage.crons.get(disabled.cron_id))!.next_run_date).toBe(past);
    expect(await storage.runs.search({ thread_id: threadId })).toHaveLength(1);
  });
});
