import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { Client, type ThreadStream } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli, type CliRun } from "../../test/support/cli-process.js";
import { startServeProcesses, type ServeProcess } from "../../test/support/serve-processes.js";

/**
 * The thread streaming protocol (POST /threads/{id}/commands, POST /threads/{id}/stream/events) across
 * real `agent-server serve` processes: a thread's events reach a stream opened on a process other than
 * the one executing the run (PostgreSQL), a late stream replays them, and a stream resumed with `since`
 * after a restart (SQLite) or a rolling restart's hand-back misses nothing. Streams are read with the
 * official SDK (`client.threads.stream`) and, where a raw `since` cursor is the point, with fetch.
 */
const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-scale-out.json", import.meta.url));
const STEPS = ["plan", "work", "check", "reply"];
const CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"] as const;
const TIMEOUT = 180_000;

/** A protocol event as it goes on the wire. */
interface WireEvent {
  type: "event";
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

afterEach(() => killAll());

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
const seqs = (events: WireEvent[]) => events.map((e) => e.seq);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rootLifecycle(event: WireEvent): string | undefined {
  if (event.method !== "lifecycle" || event.params.namespace.length > 0) return undefined;
  return (event.params.data as { event?: string }).event;
}
const rootStatuses = (events: WireEvent[]) => events.map(rootLifecycle).filter((s) => s !== undefined);
const isRunEnd = (event: WireEvent) => ["completed", "failed", "interrupted"].includes(rootLifecycle(event) ?? "");

const input = (text: string, stepMs: number) => ({ messages: [{ role: "user", content: text }], stepMs });

/**
 * The thread's events from `POST /threads/{id}/stream/events` (every channel; after `since` when given),
 * read until `until` holds for `count` events (the stream never ends by itself), then closed.
 */
async function readStream(
  url: string,
  threadId: string,
  options: { since?: number; until?: (event: WireEvent) => boolean; count?: number } = {},
): Promise<WireEvent[]> {
  const until = options.until ?? isRunEnd;
  let remaining = options.count ?? 1;
  const abort = new AbortController();
  const response = await fetch(`${url}/threads/${threadId}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ channels: CHANNELS, ...(options.since !== undefined ? { since: options.since } : {}) }),
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events: WireEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of frame.split("\n")) {
          const colon = line.indexOf(":");
          if (colon <= 0) continue;
          const name = line.slice(0, colon);
          fields.set(name, (fields.has(name) ? `${fields.get(name)}\n` : "") + line.slice(colon + 1).replace(/^ /, ""));
        }
        const data = fields.get("data");
        if (data === undefined) continue;
        const event = JSON.parse(data) as WireEvent;
        // The SSE frame carries the event's id and method too.
        expect(fields.get("id")).toBe(event.event_id);
        expect(fields.get("event")).toBe(event.method);
        events.push(event);
        if (until(event) && --remaining === 0) return events;
      }
    }
  } finally {
    abort.abort();
  }
  throw new Error(`the stream ended before the run did, after ${events.length} events`);
}

/**
 * An SDK ThreadStream on `client` bound to `threadId`, subscribed to every channel; `events` resolves with
 * what it yields up to the run's end (root lifecycle completed/failed/interrupted: the SDK ends its
 * subscriptions there), and `onFirst` is called (awaited) at its first event.
 */
async function sdkStream(
  client: Client,
  threadId: string,
  options: { onFirst?: () => Promise<void> } = {},
): Promise<{ thread: ThreadStream; events: Promise<WireEvent[]> }> {
  const thread = client.threads.stream(threadId, { assistantId: "steps" });
  const subscription = await thread.subscribe([...CHANNELS]);
  const events = (async () => {
    const seen: WireEvent[] = [];
    for await (const raw of subscription as AsyncIterable<unknown>) {
      const event = raw as WireEvent;
      seen.push(event);
      if (seen.length === 1) await options.onFirst?.();
      if (isRunEnd(event)) return seen;
    }
    throw new Error(`the SDK stream ended before the run did, after ${seen.length} events`);
  })();
  return { thread, events };
}

/** Events of the thread's whole log are numbered 1..N in order, and each run is framed by its lifecycle. */
function expectContiguous(events: WireEvent[], from = 1): void {
  expect(seqs(events)).toEqual(range(from, from + events.length - 1));
  expect(events.map((e) => e.event_id)).toEqual(events.map((e) => String(e.seq)));
}

/** The values of the run's last root `values` event. */
function lastValues(events: WireEvent[]): { steps?: string[]; messages?: Array<{ content: unknown }> } {
  const values = events.filter((e) => e.method === "values" && e.params.namespace.length === 0);
  return (values.at(-1)?.params.data ?? {}) as { steps?: string[]; messages?: Array<{ content: unknown }> };
}

/** The server whose logs say it started `runId`, once one does (log lines are written within 200 ms). */
async function executorOfRun(servers: ServeProcess[], runId: string): Promise<ServeProcess | undefined> {
  const startedIt = (s: ServeProcess) => jsonLines(s.stdout()).some((l) => l.msg === "run started" && l.run_id === runId);
  for (let i = 0; i < 100 && !servers.some(startedIt); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return servers.find(startedIt);
}

describe("thread streams across two serve processes on one PostgreSQL", () => {
  let schema: TestSchema | undefined;
  afterEach(async () => {
    await killAll();
    await schema?.drop();
    schema = undefined;
  });

  it(
    "a run started through one process is streamed live, in seq order, by a ThreadStream on the other; a late stream replays it all",
    async () => {
      schema = await createTestSchema("thread_stream");
      const servers = await startServeProcesses({
        config: PROJECT,
        databaseUrl: schema.url,
        databaseSchema: schema.schema,
        count: 2,
        workers: 2,
      });
      const [a, b] = servers as [ServeProcess, ServeProcess];
      const { thread_id: threadId } = await a.client.threads.create();

      // A stream on each process, opened before the run starts: whichever process executes it, the
      // other one's stream gets every event through the signals between them (and storage).
      const started: { runId?: string } = {};
      const statusAtFirstEvent = new Map<ServeProcess, string>();
      const firstSeen = (server: ServeProcess) => async () => {
        while (started.runId === undefined) await sleep(10);
        statusAtFirstEvent.set(server, (await server.client.runs.get(threadId, started.runId)).status);
      };
      const onA = await sdkStream(a.client, threadId, { onFirst: firstSeen(a) });
      const onB = await sdkStream(b.client, threadId, { onFirst: firstSeen(b) });

      const starter = a.client.threads.stream(threadId, { assistantId: "steps" });
      const { run_id: runId } = (await starter.run.start({ input: input("across", 1000) })) as { run_id: string };
      expect(typeof runId).toBe("string");
      started.runId = runId;

      const [streamedOnA, streamedOnB] = await Promise.all([onA.events, onB.events]);
      await a.client.runs.join(threadId, runId);
      expect((await a.client.runs.get(threadId, runId)).status).toBe("success");
      const executor = await executorOfRun(servers, runId);
      expect(executor).toBeDefined();
      const remote = executor === a ? b : a;
      const streamedRemotely = remote === a ? streamedOnA : streamedOnB;

      // The remote stream got every event live, numbered 1..N without a gap, from running to completed.
      expectContiguous(streamedRemotely);
      expect(rootStatuses(streamedRemotely)).toEqual(["running", "completed"]);

      // What the thread's log holds, read back in full (a replay) from the executing process.
      const stored = await readStream(executor!.url, threadId);
      expectContiguous(stored);
      expect(rootStatuses(stored)).toEqual(["running", "completed"]);
      expect(stored[0]!.method).toBe("lifecycle");
      expect(stored.at(-1)!.method).toBe("lifecycle");
      expect(lastValues(stored).steps).toEqual(STEPS);
      expect(JSON.stringify(lastValues(stored).messages)).toContain("done: across");

      // The remote stream saw exactly those events, in seq order, and saw them live (the run had not
      // ended when the first one reached it).
      expect(streamedRemotely).toEqual(stored);
      expect(["pending", "running"]).toContain(statusAtFirstEvent.get(remote));
      // So did the executing process's own stream.
      expect(streamedOnA).toEqual(stored);
      expect(streamedOnB).toEqual(stored);
      await Promise.all([onA.thread.close(), onB.thread.close(), starter.close()]);

      // A stream opened after the run ended, on the process that did not execute it, replays the run.
      const late = await sdkStream(remote.client, threadId);
      expect(await late.events).toEqual(stored);
      await late.thread.close();

      // A stream of the thread goes on across runs: the next one, started through the other process, is
      // streamed live on this one after the first, its numbering going on.
      const following = readStream(remote.url, threadId, { count: 2 });
      const secondStarter = executor!.client.threads.stream(threadId, { assistantId: "steps" });
      const { run_id: secondRunId } = (await secondStarter.run.start({ input: input("again", 200) })) as { run_id: string };
      const both = await following;
      await executor!.client.runs.join(threadId, secondRunId);
      expect(both.slice(0, stored.length)).toEqual(stored);
      expectContiguous(both);
      const second = both.slice(stored.length);
      expect(rootStatuses(second)).toEqual(["running", "completed"]);
      expect(JSON.stringify(lastValues(second).messages)).toContain("done: again");
      await secondStarter.close();
    },
    TIMEOUT,
  );
});

describe("thread streams over a restart on SQLite", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function serveArgs(dataDir: string, ...extra: string[]): string[] {
    return ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--workers", "4", ...extra];
  }

  async function stop(server: CliRun): Promise<void> {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }

  it(
    "a stream opened with since: N on the restarted server gets exactly events N+1..end; the numbering goes on after them",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "agent-server-thread-stream-"));
      dirs.push(dataDir);
      const first = await startCli(serveArgs(dataDir));
      const client = new Client({ apiUrl: first.url });
      const { thread_id: threadId } = await client.threads.create();
      const own = await sdkStream(client, threadId);
      const starter = client.threads.stream(threadId, { assistantId: "steps" });
      const { run_id: runId } = (await starter.run.start({ input: input("persist", 100) })) as { run_id: string };
      const streamed = await own.events;
      await client.runs.join(threadId, runId);
      const all = await readStream(first.url, threadId);
      expect(streamed).toEqual(all);
      expectContiguous(all);
      expect(rootStatuses(all)).toEqual(["running", "completed"]);
      expect(all.length).toBeGreaterThan(6);
      await Promise.all([own.thread.close(), starter.close()]);
      await stop(first);

      const second = await startCli(serveArgs(dataDir));
      for (const since of [0, 1, Math.floor(all.length / 2), all.length - 1]) {
        const rest = await readStream(second.url, threadId, { since });
        expect(rest).toEqual(all.slice(since));
      }
      // since: N (the last one): nothing until the thread's next run, whose events continue the numbering.
      const next = readStream(second.url, threadId, { since: all.length });
      const again = new Client({ apiUrl: second.url });
      const secondStarter = again.threads.stream(threadId, { assistantId: "steps" });
      const { run_id: secondRun } = (await secondStarter.run.start({ input: input("after restart", 100) })) as { run_id: string };
      const continued = await next;
      await again.runs.join(threadId, secondRun);
      expectContiguous(continued, all.length + 1);
      expect(rootStatuses(continued)).toEqual(["running", "completed"]);
      expect(JSON.stringify(lastValues(continued).messages)).toContain("done: after restart");
      await secondStarter.close();
    },
    TIMEOUT,
  );

  it(
    "a run handed back by a SIGTERM drain goes on after the restart: the thread's stream shows running, running, completed",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "agent-server-thread-stream-drain-"));
      dirs.push(dataDir);
      const first = await startCli(serveArgs(dataDir, "--grace-period", "1", "--drain-timeout", "20"));
      const client = new Client({ apiUrl: first.url });
      const { thread_id: threadId } = await client.threads.create();
      const starter = client.threads.stream(threadId, { assistantId: "steps" });
      // Four steps of 1.5 s: the run outlives the 1 s grace period and is handed back at a step boundary.
      const { run_id: runId } = (await starter.run.start({ input: input("drained", 1500) })) as { run_id: string };
      // Past its first step (a checkpoint behind it) before the drain.
      const beforeDrain = await readStream(first.url, threadId, {
        until: (e) => e.method === "values" && (lastValues([e]).steps ?? []).length > 0,
      });
      expect(rootStatuses(beforeDrain)).toEqual(["running"]);
      await starter.close();
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
      expect(jsonLines(first.stdout()).some((l) => l.run_id === runId && /handed back/.test(String(l.msg)))).toBe(true);

      const second = await startCli(serveArgs(dataDir));
      const again = new Client({ apiUrl: second.url });
      // The SDK's stream of the whole thread: both attempts of the run, to its end.
      const whole = await sdkStream(again, threadId);
      const streamed = await whole.events;
      await again.runs.join(threadId, runId);
      expect((await again.runs.get(threadId, runId)).status).toBe("success");
      expectContiguous(streamed);
      expect(rootStatuses(streamed)).toEqual(["running", "running", "completed"]);
      expect(streamed.slice(0, beforeDrain.length)).toEqual(beforeDrain);
      // Each step ran once: the second attempt went on from the checkpoint.
      expect(lastValues(streamed).steps).toEqual(STEPS);
      expect(JSON.stringify(lastValues(streamed).messages)).toContain("done: drained");
      const resumedAt = streamed.findIndex((e, i) => i > 0 && rootLifecycle(e) === "running");
      // Nothing of the first attempt comes after the second one started, and nothing ended the first.
      expect(streamed.slice(0, resumedAt).some(isRunEnd)).toBe(false);
      expect(await readStream(second.url, threadId, { since: streamed[resumedAt - 1]!.seq })).toEqual(streamed.slice(resumedAt));
      await whole.thread.close();
    },
    TIMEOUT,
  );
});
