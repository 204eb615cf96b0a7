import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, runDrivers } from "../../test/support/runs.js";

interface Part {
  id?: string;
  event: string;
  data: unknown;
}

async function collect(stream: AsyncIterable<unknown>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const part of stream) parts.push(part as Part);
  return parts;
}

const ai = (messages: unknown) => (messages as { type: string; content: string }[]).find((m) => m.type === "ai");

describe.each(runDrivers)("run streaming over SSE ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  const stream = async (mode: string, assistant = "echo", extra: Record<string, unknown> = {}) => {
    const thread = await newThread(server.storage);
    return collect(client.runs.stream(thread, assistant, { input: hello, streamMode: [mode as never], ...extra }));
  };

  it("streams every mode under the event names the SDK yields, metadata first", async () => {
    const values = await stream("values");
    expect(values[0]).toMatchObject({ event: "metadata", data: { run_id: expect.any(String), attempt: 1 } });
    expect(values.slice(1).every((p) => p.event === "values")).toBe(true);
    expect(ai((values.at(-1)!.data as { messages: unknown }).messages)?.content).toBe("echo: hi");

    const updates = await stream("updates");
    expect(updates.map((p) => p.event)).toEqual(["metadata", "updates"]);
    expect(ai((updates[1]!.data as { echo: { messages: unknown } }).echo.messages)?.content).toBe("echo: hi");

    const messages = await stream("messages");
    const complete = messages.filter((p) => p.event === "messages/complete").flatMap((p) => p.data as unknown[]);
    expect(ai(complete)?.content).toBe("echo: hi");
    expect(messages.some((p) => p.event === "values")).toBe(false);

    const tuples = await stream("messages-tuple");
    const tuple = tuples.find((p) => p.event === "messages")!.data as [{ content: string }, Record<string, unknown>];
    expect(tuple[0].content).toBe("echo: hi");
    expect(tuple[1]).toMatchObject({ langgraph_node: "echo" });

    expect((await stream("custom")).filter((p) => p.event === "custom").map((p) => p.data)).toEqual([{ progress: "echoing" }]);

    const events = await stream("events");
    expect(events.filter((p) => p.event === "events").map((p) => (p.data as { event: string }).event)).toContain("on_chain_start");

    const debug = await stream("debug");
    expect(debug.filter((p) => p.event === "debug").map((p) => (p.data as { type: string }).type)).toEqual(
      expect.arrayContaining(["checkpoint", "task", "task_result"]),
    );

    const tasks = await stream("tasks");
    expect(tasks.filter((p) => p.event === "tasks").map((p) => (p.data as { name: string }).name)).toContain("echo");

    const checkpoints = await stream("checkpoints");
    const last = checkpoints.filter((p) => p.event === "checkpoints").at(-1)!.data as { values: { messages: unknown } };
    expect(ai(last.values.messages)?.content).toBe("echo: hi");
  });

  it("sends several modes in one stream, and an error event when the graph fails", async () => {
    const mixed = await stream("values", "echo", { streamMode: ["values", "updates", "custom"] });
    expect(new Set(mixed.map((p) => p.event))).toEqual(new Set(["metadata", "values", "updates", "custom"]));

    const failed = await stream("values", "failing");
    expect(failed.at(-1)).toMatchObject({ event: "error", data: { message: "graph failed on purpose" } });
  });

  it("namespaces subgraph events as mode|node:task with stream_subgraphs", async () => {
    const nested = await stream("updates", "parent", { streamSubgraphs: true });
    const names = nested.map((p) => p.event);
    expect(names.some((n) => /^updates\|child:[^|]+$/.test(n))).toBe(true);
    expect(names).toContain("updates");

    const flat = await stream("updates", "parent");
    expect(flat.map((p) => p.event)).toEqual(["metadata", "updates"]);
  });

  it("lets a second client join a live run's stream until it ends", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", { input: { delayMs: 400 }, streamMode: ["values", "updates"] });
    const other = new Client({ apiUrl: server.url });
    const joined = await collect(other.runs.joinStream(thread, run.run_id));
    expect(joined.some((p) => p.event === "updates" && "second" in (p.data as object))).toBe(true);
    expect(joined.filter((p) => p.event === "values").at(-1)?.data).toMatchObject({ steps: [1, 2] });
    expect((await client.runs.get(thread, run.run_id)).status).toBe("success");
  });

  it("replays a resumable run after Last-Event-ID: exactly the events the client missed", async () => {
    const thread = await newThread(server.storage);
    const abort = new AbortController();
    let created: { run_id: string; thread_id?: string } | undefined;
    const first: Part[] = [];
    for await (const part of client.runs.stream(thread, "slow", {
      input: { delayMs: 300 },
      streamMode: ["values", "updates"],
      streamResumable: true,
      signal: abort.signal,
      onRunCreated: (meta) => (created = meta),
    })) {
      first.push(part as Part);
      if (first.length === 2) break;
    }
    abort.abort();
    expect(created).toEqual({ run_id: expect.any(String), thread_id: thread });
    const runId = created!.run_id;
    expect(first.every((p) => /^\d+$/.test(p.id ?? ""))).toBe(true);

    // Reconnect while the run is (most likely) still executing: stored events after the id, then live ones.
    const rest = await collect(client.runs.joinStream(thread, runId, { lastEventId: first.at(-1)!.id }));
    const all = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1" }));
    expect(all.length).toBeGreaterThan(first.length);
    expect(first).toEqual(all.slice(0, first.length));
    expect(rest).toEqual(all.slice(first.length));
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    expect(all.filter((p) => p.event === "values").at(-1)?.data).toMatchObject({ steps: [1, 2] });
    const narrowed = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1", streamMode: ["updates"] }));
    expect(narrowed.map((p) => p.event)).toEqual(["metadata", "updates", "updates"]);
    // The client went away, but on_disconnect defaults to continue: the run finished.
    expect((await client.runs.get(thread, runId)).status).toBe("success");
  });

  it("answers SSE with Content-Location, and Location (the join path) for a resumable run", async () => {
    const thread = await newThread(server.storage);
    const post = (body: object) =>
      fetch(`${server.url}/threads/${thread}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "echo", input: hello, ...body }),
      });
    const plain = await post({});
    expect(plain.headers.get("content-type")).toContain("text/event-stream");
    expect(plain.headers.get("cache-control")).toBe("no-cache");
    expect(plain.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]+$`));
    expect(plain.headers.get("location")).toBeNull();
    const text = await plain.text();
    // Numbered from 0 as on the official server, though a non-resumable run keeps nothing to replay.
    expect(text).toMatch(/^event: metadata\ndata: \{"run_id":"[0-9a-f-]+","attempt":1\}\nid: 0\n\n/);
    const ids = [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]);
    expect(ids).toEqual(ids.map((_, index) => String(index)));
    expect(ids.length).toBe(text.match(/^event: /gm)!.length);
    const resumable = await post({ stream_resumable: true });
    const location = resumable.headers.get("location");
    expect(location).toBe(`${resumable.headers.get("content-location")}/stream`);
    expect(await resumable.text()).toMatch(/^event: metadata\ndata: .*\nid: \d+\n\n/);
  });

  it("sends a stateless run's own stream without ids, as the official server does", async () => {
    const response = await fetch(`${server.url}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", input: hello }),
    });
    const text = await response.text();
    expect(text).toMatch(/^event: metadata\n/);
    expect(text).not.toMatch(/^id:/m);
  });

  it("accepts stream_mode tools (the SDK's useStream asks for it) and streams tool-call events", async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(client.runs.stream(thread, "tool-caller", { input: { city: "Porto" }, streamMode: ["tools", "updates"] }));
    expect(parts.map((p) => p.event)).toEqual(["metadata", "tools", "tools", "updates"]);
    expect(parts[1]!.data).toEqual({ event: "on_tool_start", toolCallId: "call-1", name: "get_weather", input: expect.anything() });
    expect(parts[2]!.data).toMatchObject({
      event: "on_tool_end",
      toolCallId: "call-1",
      name: "get_weather",
      output: { type: "tool", content: "sunny in Porto", tool_call_id: "call-1" },
    });
  });

  it("cancels the run when a client with on_disconnect=cancel goes away", async () => {
    const thread = await newThread(server.storage);
    const abort = new AbortController();
    let runId: string | undefined;
    for await (const part of client.runs.stream(thread, "slow", {
      input: { delayMs: 5000 },
      onDisconnect: "cancel",
      signal: abort.signal,
      onRunCreated: (meta) => (runId = meta.run_id),
    })) {
      if ((part as Part).event === "metadata") break;
    }
    abort.abort();
    await eventually(async () => (await client.runs.get(thread, runId!)).status === "interrupted");
  });

  it("joins with cancel_on_disconnect: a watcher that goes away interrupts the run", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", { input: { delayMs: 5000 } });
    // Raw fetch: the test must know the join is established (its headers arrived) before it leaves,
    // which the SDK's lazy generator does not tell.
    const abort = new AbortController();
    const response = await fetch(`${server.url}/threads/${thread}/runs/${run.run_id}/stream?cancel_on_disconnect=1`, {
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    abort.abort();
    await eventually(async () => (await client.runs.get(thread, run.run_id)).status === "interrupted");
  });
});
