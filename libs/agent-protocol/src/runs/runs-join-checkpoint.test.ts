import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, runDrivers } from "../../test/support/runs.js";

/**
 * `runs.joinStream(thread, run, { lastEventId: "-1", checkpointId })`: a client that already shows the
 * state of one of the run's checkpoints (the thread's head after a reload) is sent only the run's events
 * after it; a checkpoint that is not one of the run's replays the whole run.
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

const steps = (part: Part) => (part.data as { steps?: number[] }).steps;

describe.each(runDrivers)("joining a run's stream after a checkpoint ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  /** The thread's checkpoint whose values have `done` steps done. */
  const checkpointAfter = async (thread: string, done: number[]) => {
    const history = await client.threads.getHistory<{ steps: number[] }>(thread, { limit: 20 });
    const state = history.find((s) => JSON.stringify(s.values.steps) === JSON.stringify(done) && s.next.length > 0);
    return state!.checkpoint.checkpoint_id!;
  };

  it("replays only the events after the checkpoint of an ended run, led by its metadata", async () => {
    const thread = await newThread(server.storage);
    const all = await collect(
      client.runs.stream(thread, "slow", { input: { delayMs: 50 }, streamMode: ["values", "updates"], streamResumable: true }),
    );
    const runId = (all[0]!.data as { run_id: string }).run_id;
    const afterFirst = await checkpointAfter(thread, [1]);
    const joined = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1", checkpointId: afterFirst }));
    // After "first": the update of "second" and the final values; ids as the run's own stream had them.
    const second = all.findIndex((p) => p.event === "updates" && "second" in (p.data as object));
    expect(joined).toEqual([all[0], ...all.slice(second)]);
    expect(joined.slice(1).map((p) => p.event)).toEqual(["updates", "values"]);
    expect(steps(joined.at(-1)!)).toEqual([1, 2]);

    // The checkpoint before the run (the head the run started from) is not one of its: the whole run.
    const before = await collect(client.runs.stream(thread, "slow", { input: { delayMs: 50 }, streamResumable: true }));
    const nextRun = (before[0]!.data as { run_id: string }).run_id;
    const whole = await collect(client.runs.joinStream(thread, nextRun, { lastEventId: "-1", checkpointId: afterFirst }));
    expect(whole).toEqual(before);
    // A Last-Event-ID other than -1 wins over the checkpoint.
    const resumed = await collect(client.runs.joinStream(thread, runId, { lastEventId: all[1]!.id, checkpointId: afterFirst }));
    expect(resumed).toEqual(all.slice(2));
  });

  it("joins a live run after the checkpoint the client shows, then goes on live", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", {
      input: { delayMs: 700 },
      streamMode: ["values", "updates"],
      streamResumable: true,
    });
    const shown = await eventually(async () => {
      const state = await client.threads.getState<{ steps?: number[] }>(thread);
      return JSON.stringify(state.values.steps) === "[1]" ? state.checkpoint.checkpoint_id : undefined;
    });
    const joined = await collect(client.runs.joinStream(thread, run.run_id, { lastEventId: "-1", checkpointId: shown! }));
    expect(joined.map((p) => p.event)).toEqual(["metadata", "updates", "values"]);
    expect(joined[1]!.data).toHaveProperty("second");
    expect(steps(joined[2]!)).toEqual([1, 2]);
  });

  it("finds the checkpoints of a run streamed with subgraphs (LangGraph's envelopes) and of every stream mode", async () => {
    const thread = await newThread(server.storage);
    const all = await collect(
      client.runs.stream(thread, "parent", {
        input: hello,
        streamMode: ["values", "updates"],
        streamSubgraphs: true,
        streamResumable: true,
      }),
    );
    const runId = (all[0]!.data as { run_id: string }).run_id;
    // The checkpoint that holds the input: what follows is the subgraph's work and the parent's last values.
    const history = await client.threads.getHistory(thread, { limit: 10 });
    const started = history.find((s) => s.metadata?.step === 0)!.checkpoint.checkpoint_id!;
    const joined = await collect(client.runs.joinStream(thread, runId, { lastEventId: "-1", checkpointId: started }));
    const firstValues = all.findIndex((p) => p.event === "values");
    expect(joined[0]).toEqual(all[0]);
    expect(joined.slice(1)).toEqual(all.slice(firstValues + 1));
    expect(joined.some((p) => p.event.startsWith("updates|child:"))).toBe(true);

    const custom = await collect(client.runs.stream(thread, "echo", { input: hello, streamMode: "custom", streamResumable: true }));
    const head = (await client.threads.getState(thread)).checkpoint.checkpoint_id!;
    const customRun = (custom[0]!.data as { run_id: string }).run_id;
    // The head is the run's last checkpoint: nothing after it but the metadata.
    expect(await collect(client.runs.joinStream(thread, customRun, { lastEventId: "-1", checkpointId: head }))).toEqual([custom[0]]);
  });
});
