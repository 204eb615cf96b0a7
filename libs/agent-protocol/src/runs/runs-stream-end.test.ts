import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestDriver } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

/**
 * The `end` event of classic run streams (`{run_id, status}`, as the Python Agent Server ends them): off
 * by default (the official JS server sends none), on per request with `stream_end=1` or for the whole
 * server with `streamEndEvent`, off again per request with `stream_end=0`.
 */

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

/** The official SDK client, adding `stream_end=<flag>` to every request it makes (its `onRequest` hook). */
function clientWithEnd(url: string, flag: "1" | "0"): Client {
  return new Client({
    apiUrl: url,
    onRequest: (target, init) => {
      target.searchParams.set("stream_end", flag);
      return init;
    },
  });
}

async function openServerWithEnd(driver: TestDriver): Promise<TestServer> {
  const opened = await driver.open();
  const server = await startTestServer(opened.storage, { app: { streamEndEvent: true } });
  return {
    ...server,
    async close() {
      await server.close();
      await opened.dispose();
    },
  };
}

describe.each(runDrivers)("end event of run streams ($name)", (driver) => {
  let server: TestServer;
  let ending: TestServer;

  beforeAll(async () => {
    [server, ending] = await Promise.all([openRunsServer(driver), openServerWithEnd(driver)]);
  });
  afterAll(() => Promise.all([server.close(), ending.close()]));

  it("sends none by default, and {run_id, status} last when the request asks with stream_end=1", async () => {
    const thread = await newThread(server.storage);
    const plain = await collect(server.client.runs.stream(thread, "echo", { input: hello }));
    expect(plain.map((p) => p.event)).toEqual(["metadata", "values", "values"]);
    const asked = await collect(clientWithEnd(server.url, "1").runs.stream(thread, "echo", { input: hello }));
    const runId = (asked[0]!.data as { run_id: string }).run_id;
    expect(asked.map((p) => p.event)).toEqual(["metadata", "values", "values", "end"]);
    // No `id:` line: the SDK's decoder repeats the previous event's id on it.
    expect(asked.at(-1)).toMatchObject({ event: "end", data: { run_id: runId, status: "success" } });
  });

  it("ends every stream of a server configured for it: success, error after the error event, stateless runs", async () => {
    const { client } = ending;
    const thread = await newThread(ending.storage);
    const ok = await collect(client.runs.stream(thread, "echo", { input: hello, streamMode: "updates" }));
    expect(ok.map((p) => p.event)).toEqual(["metadata", "updates", "end"]);
    expect((ok.at(-1)!.data as { status: string }).status).toBe("success");
    const failed = await collect(client.runs.stream(thread, "failing", { input: hello }));
    expect(failed.slice(-2).map((p) => [p.event, (p.data as { status?: string }).status ?? null])).toEqual([
      ["error", null],
      ["end", "error"],
    ]);
    // A stateless run's thread (and the run) is gone when it ends: the status comes from its settlement.
    const stateless = await collect(client.runs.stream(null, "echo", { input: hello }));
    expect(stateless.at(-1)).toMatchObject({
      event: "end",
      data: { run_id: (stateless[0]!.data as { run_id: string }).run_id, status: "success" },
    });
    // A request may still turn it off.
    const off = await collect(clientWithEnd(ending.url, "0").runs.stream(thread, "echo", { input: hello }));
    expect(off.some((p) => p.event === "end")).toBe(false);
  });

  it("ends joins: a live run's end, an ended run's status, a cancelled run interrupted, a rolled back one rollback", async () => {
    const { client } = ending;
    const thread = await newThread(ending.storage);
    const live = await client.runs.create(thread, "slow", { input: { delayMs: 200 }, streamMode: "updates" });
    const joined = await collect(client.runs.joinStream(thread, live.run_id));
    expect(joined.at(-1)).toMatchObject({ event: "end", data: { run_id: live.run_id, status: "success" } });
    const late = await collect(client.runs.joinStream(thread, live.run_id));
    expect(late).toEqual([{ event: "end", data: { run_id: live.run_id, status: "success" } }]);

    for (const action of ["interrupt", "rollback"] as const) {
      const run = await client.runs.create(thread, "slow", { input: { delayMs: 3000 } });
      await eventually(async () => (await client.runs.get(thread, run.run_id)).status === "running");
      const watching = collect(client.runs.joinStream(thread, run.run_id));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.runs.cancel(thread, run.run_id, false, action);
      const parts = await watching;
      expect(parts.at(-1)).toMatchObject({
        event: "end",
        data: { run_id: run.run_id, status: action === "interrupt" ? "interrupted" : "rollback" },
      });
    }
  });

  it("keeps the end event through a join's stream_mode filter, and sends it raw as the SDK parses it", async () => {
    const thread = await newThread(ending.storage);
    const run = await ending.client.runs.create(thread, "echo", { input: hello, streamResumable: true });
    await ending.client.runs.join(thread, run.run_id);
    const narrowed = await collect(ending.client.runs.joinStream(thread, run.run_id, { lastEventId: "-1", streamMode: "updates" }));
    expect(narrowed.map((p) => p.event)).toEqual(["metadata", "end"]);
    const response = await raw(`${ending.url}/threads/${thread}/runs/${run.run_id}/stream`, "GET");
    expect(response.text).toBe(`event: end\ndata: {"run_id":"${run.run_id}","status":"success"}\n\n`);
  });
});
