import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";
import { delegatorGraph } from "../../test/support/stream-test-graphs.js";

/**
 * The `lifecycle` stream mode and `streamNamespaces` (`?namespace=`) on classic run streams and joins,
 * through the official SDK: a supervisor whose tool calls each start a researcher subagent (one answers,
 * "ask" stops at an interrupt, "fail" throws), and the `parent` test graph (a plain subgraph node).
 */

interface Part {
  id?: string;
  event: string;
  data: unknown;
}

interface Lifecycle {
  event: string;
  namespace: string[];
  tool_call_id?: string;
  error?: { error: string; message: string };
}

async function collect(stream: AsyncIterable<unknown>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const part of stream) parts.push(part as Part);
  return parts;
}

const lifecycles = (parts: Part[]) => parts.filter((p) => p.event.startsWith("lifecycle")).map((p) => p.data as Lifecycle);
/** The namespace (`tools:<task id>`) the subagent started by a tool call runs in. */
const namespaceOf = (parts: Part[], toolCallId: string) =>
  lifecycles(parts)
    .find((l) => l.event === "started" && l.tool_call_id === toolCallId)!
    .namespace.join("|");

describe.each(runDrivers)("lifecycle stream mode and stream namespaces ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
    server.engine.registry.register("delegator", delegatorGraph);
    await server.engine.registry.ensureSystemAssistants(server.storage);
  });
  afterAll(() => server.close());

  it("streams lifecycle|<ns> events: started with the tool call that started the subagent, then how it ended", async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(
      client.runs.stream(thread, "delegator", {
        input: { topics: ["cats", "ask"] },
        streamMode: ["lifecycle", "updates"],
        streamSubgraphs: true,
      }),
    );
    const cats = namespaceOf(parts, "call-1");
    const ask = namespaceOf(parts, "call-2");
    expect(cats).toMatch(/^tools:[0-9a-f-]+$/);
    expect(ask).toMatch(/^tools:[0-9a-f-]+$/);
    expect(cats).not.toBe(ask);
    const of = (ns: string) => parts.filter((p) => p.event === `lifecycle|${ns}`).map((p) => p.data);
    expect(of(cats)).toEqual([
      { event: "started", namespace: [cats], tool_call_id: "call-1" },
      { event: "completed", namespace: [cats] },
    ]);
    expect(of(ask)).toEqual([
      { event: "started", namespace: [ask], tool_call_id: "call-2" },
      { event: "interrupted", namespace: [ask] },
    ]);
    const names = parts.map((p) => p.event);
    // A subagent's start comes before its first event; its end after the parent's update of the tool node.
    expect(names.indexOf(`lifecycle|${cats}`)).toBeLessThan(names.indexOf(`updates|${cats}`));
    const toolsUpdate = parts.findIndex((p) => p.event === "updates" && "tools" in (p.data as object));
    expect(names.lastIndexOf(`lifecycle|${cats}`)).toBeGreaterThan(toolsUpdate);
    expect(names[0]).toBe("metadata");
  });

  it("sends lifecycle events without stream_subgraphs, and nothing else of the subgraphs", async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(
      client.runs.stream(thread, "delegator", { input: { topics: ["cats"] }, streamMode: ["lifecycle", "updates"] }),
    );
    const cats = namespaceOf(parts, "call-1");
    expect(parts.map((p) => p.event)).toEqual(["metadata", "updates", `lifecycle|${cats}`, "updates", `lifecycle|${cats}`]);
    // A plain subgraph node has no tool call: no tool_call_id.
    const nested = await collect(client.runs.stream(await newThread(server.storage), "parent", { input: hello, streamMode: "lifecycle" }));
    expect(lifecycles(nested)).toEqual([
      { event: "started", namespace: [expect.stringMatching(/^child:/)] },
      { event: "completed", namespace: [expect.stringMatching(/^child:/)] },
    ]);
  });

  it("reports a failed subagent with its error, before the run's error event", async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(client.runs.stream(thread, "delegator", { input: { topics: ["fail"] }, streamMode: ["lifecycle"] }));
    const failing = namespaceOf(parts, "call-1");
    expect(parts.slice(1).map((p) => [p.event, (p.data as Lifecycle).event ?? null])).toEqual([
      [`lifecycle|${failing}`, "started"],
      [`lifecycle|${failing}`, "failed"],
      ["error", null],
    ]);
    expect(lifecycles(parts)[1]!.error).toEqual({ error: "Error", message: "research failed on purpose" });
  });

  it("starts an interrupted subagent again when its thread is resumed, and completes it", async () => {
    const thread = await newThread(server.storage);
    const first = await collect(client.runs.stream(thread, "delegator", { input: { topics: ["ask"] }, streamMode: ["lifecycle"] }));
    const ask = namespaceOf(first, "call-1");
    const resumed = await collect(client.runs.stream(thread, "delegator", { command: { resume: "dogs" }, streamMode: ["lifecycle"] }));
    expect(lifecycles(resumed)).toEqual([
      { event: "started", namespace: [ask], tool_call_id: "call-1" },
      { event: "completed", namespace: [ask] },
    ]);
  });

  it('answers namespace [""] with the root graph only, even with stream_subgraphs', async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(
      client.runs.stream(thread, "delegator", {
        input: { topics: ["cats", "dogs"] },
        streamMode: ["lifecycle", "updates", "messages"],
        streamSubgraphs: true,
        streamNamespaces: [""],
      }),
    );
    expect(parts.filter((p) => p.event.includes("|"))).toEqual([]);
    expect(parts.map((p) => p.event)).toEqual(expect.arrayContaining(["metadata", "updates", "messages/complete"]));
    // The researchers' model tokens ran in their namespaces: not the root's.
    expect(parts.some((p) => p.event === "messages/partial" || p.event === "messages/metadata")).toBe(false);
    expect((await client.runs.list(thread))[0]!.status).toBe("success");
  });

  it("joins one subagent's namespace: its events only, without the root's or its sibling's", async () => {
    const thread = await newThread(server.storage);
    const parts = await collect(
      client.runs.stream(thread, "delegator", {
        input: { topics: ["cats", "dogs"] },
        streamMode: ["lifecycle", "updates", "messages"],
        streamSubgraphs: true,
        streamResumable: true,
      }),
    );
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const cats = namespaceOf(parts, "call-1");
    const dogs = namespaceOf(parts, "call-2");
    const joined = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1", streamNamespaces: [cats] }));
    const names = new Set(joined.map((p) => p.event));
    // `checkpoints|ns`: LangGraph's checkpoint envelopes beside a subgraph's values (the messages mode streams them).
    const own = ["metadata", `lifecycle|${cats}`, `updates|${cats}`, `checkpoints|${cats}`];
    expect(names).toEqual(new Set([...own, "messages/metadata", "messages/partial", "messages/complete"]));
    const content = (p: Part) => (p.data as Array<{ content: string }>).map((m) => m.content);
    expect(
      joined
        .filter((p) => p.event === "messages/partial")
        .map(content)
        .at(-1),
    ).toEqual(["notes on cats"]);
    expect(joined.filter((p) => p.event === "messages/complete").map(content)).toEqual([["notes on cats"]]);
    // Both subagents, nothing of the root: two namespaces, each whole.
    const both = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1", streamNamespaces: [cats, dogs] }));
    expect(both.filter((p) => p.event.startsWith("lifecycle|")).map((p) => p.event)).toEqual(
      expect.arrayContaining([`lifecycle|${cats}`, `lifecycle|${dogs}`]),
    );
    expect(both.some((p) => p.event === "updates")).toBe(false);
    // The namespace travels in the query, `|` and `:` percent-encoded as the SDK and browsers send them.
    const query = new URLSearchParams([["namespace", cats]]);
    const response = await raw(`${server.url}/threads/${thread}/runs/${runId}/stream?${query}`, "GET", undefined, {
      "Last-Event-ID": "-1",
    });
    expect(response.text).toContain(`event: updates|${cats}\n`);
    expect(response.text).not.toContain(`event: updates\n`);
  });

  it("accepts lifecycle as a join's stream_mode, and advertises stream_namespaces in /info", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "delegator", {
      input: { topics: ["cats"] },
      streamMode: ["lifecycle", "updates"],
      streamResumable: true,
    });
    await client.runs.join(thread, run.run_id);
    const joined = await collect(client.runs.joinStream(thread, run.run_id, { lastEventId: "-1", streamMode: "lifecycle" }));
    expect(joined.map((p) => p.event.split("|")[0])).toEqual(["metadata", "lifecycle", "lifecycle"]);
    const info = (await (await fetch(`${server.url}/info`)).json()) as { flags: Record<string, unknown> };
    expect(info.flags.stream_namespaces).toBe(true);
  });
});
