import { afterEach, describe, expect, it } from "vitest";
import { addMs, LocalSignalBus, nowIso, type EventRepo, type Storage } from "@agent-server/core";
import { drivers, type TestDriver } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { EngineSignals } from "../signals/engine-signals.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { ThreadEventLog, type ThreadEvent, type ThreadEventStream } from "./thread-event-log.js";

/**
 * The thread streaming protocol's event log (`ThreadEventLog`) on every driver: numbering, replay after a
 * cursor then live delivery (no duplicates, no gaps, also with appends racing the open), delivery across
 * engines sharing one database (memory instances over one state, PostgreSQL), gap filling after a lost
 * signal, and close().
 */

const TTL_MS = 60 * 60_000;
/** Drivers whose instances over the same data hear each other's signals (reach "database"). */
const sharedSignals = drivers.filter((d) => d.name !== "sqlite");

type Opened = Awaited<ReturnType<TestDriver["open"]>>;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function openDriver(driver: TestDriver): Promise<Opened> {
  const opened = await driver.open();
  cleanups.push(() => opened.dispose());
  return opened;
}

/** Signals over `bus`; `muted` ones never reach another engine (a lost signal). */
function signalsOver(storage: Storage, options: { muted?: boolean } = {}): EngineSignals {
  const bus = options.muted ? new LocalSignalBus("process") : (storage.signals ?? new LocalSignalBus("process"));
  return new EngineSignals(bus, (error) => {
    throw error;
  });
}

function logOver(storage: Storage, options: { muted?: boolean; events?: EventRepo } = {}): ThreadEventLog {
  return new ThreadEventLog(options.events ?? storage.events, TTL_MS, signalsOver(storage, options), POLL_MS);
}

/** The fallback read of an open stream that hears nothing (a lost signal): short, so the tests stay quick. */
const POLL_MS = 300;

const params = (data: unknown) => ({ namespace: [], timestamp: Date.now(), data });

/** Reads a stream one event at a time (it never ends by itself); every read fails after `timeoutMs`. */
function reader(stream: ThreadEventStream, timeoutMs = 15_000) {
  const iterator = stream[Symbol.asyncIterator]();
  const next = async (): Promise<IteratorResult<ThreadEvent>> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([iterator.next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    next,
    /** The next `n` events (fails if the stream ends or stalls first). */
    async take(n: number): Promise<ThreadEvent[]> {
      const out: ThreadEvent[] = [];
      while (out.length < n) {
        const result = await next();
        if (result.done) throw new Error(`the stream ended after ${out.length} of ${n} events`);
        out.push(result.value);
      }
      return out;
    },
  };
}

const seqs = (events: ThreadEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** An `EventRepo` that resolves `listed` once a `list` of `key` has returned (a stream's replay is done). */
function watchedEvents(events: EventRepo, key: string) {
  let resolve!: () => void;
  const listed = new Promise<void>((r) => (resolve = r));
  const repo: EventRepo = {
    append: (...args) => events.append(...args),
    list: async (runId, options) => {
      const result = await events.list(runId, options);
      if (runId === key) resolve();
      return result;
    },
    deleteExpired: (now) => events.deleteExpired(now),
    deleteForRun: (runId) => events.deleteForRun(runId),
  };
  return { repo, listed };
}

describe.each(drivers)("ThreadEventLog on $name", (driver) => {
  it("numbers a thread's events 1, 2, 3... without gaps, each thread on its own, even with concurrent appends", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const appended = await Promise.all(
      range(1, 40).map((i) => log.append(i % 2 === 0 ? a : b, `run-${i % 4}`, i % 3 === 0 ? "values" : "updates", params({ i }))),
    );
    for (const thread of [a, b]) {
      const stored = await log.list(thread);
      expect(seqs(stored.map((s) => s.event))).toEqual(range(1, 20));
      for (const { event, runId } of stored) {
        expect(event.event_id).toBe(String(event.seq));
        expect(event.type).toBe("event");
        // The stored event is the one append returned (method, params, run).
        const original = appended.find((e) => e.seq === event.seq && (e.params.data as { i: number }).i % 2 === (thread === a ? 0 : 1))!;
        expect(event).toEqual(original);
        expect(runId).toBe(`run-${(event.params.data as { i: number }).i % 4}`);
      }
    }
    expect(seqs(appended.filter((e) => (e.params.data as { i: number }).i % 2 === 0)).sort((x, y) => x - y)).toEqual(range(1, 20));
  });

  it("list(after) returns only the later events, in order", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    for (const i of range(1, 6)) await log.append(thread, "run", "values", params({ i }));
    expect(seqs((await log.list(thread, 4)).map((s) => s.event))).toEqual([5, 6]);
    expect(await log.list(thread, 6)).toEqual([]);
    expect(await log.list(crypto.randomUUID())).toEqual([]);
  });

  it("keeps payloads as wire JSON (what JSON cannot carry becomes null or is dropped)", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    const sent = await log.append(thread, "run", "values", params({ text: "é ✓", nested: { list: [1, "two", null] }, gone: undefined }));
    const [stored] = await log.list(thread);
    expect(stored!.event).toEqual(sent);
    expect(stored!.event.params.data).toEqual({ text: "é ✓", nested: { list: [1, "two", null] } });
  });

  it("open({after}) replays exactly the later events, then live ones; open() replays them all", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    for (const i of range(1, 5)) await log.append(thread, "run", "values", params({ i }));
    const later = log.open(thread, { after: 3 });
    const all = log.open(thread);
    const fromEnd = log.open(thread, { after: 5 });
    cleanups.push(async () => [later, all, fromEnd].forEach((s) => s.close()));
    const [laterReader, allReader, endReader] = [reader(later), reader(all), reader(fromEnd)];
    expect(seqs(await laterReader.take(2))).toEqual([4, 5]);
    expect(seqs(await allReader.take(5))).toEqual(range(1, 5));
    for (const i of range(6, 8)) await log.append(thread, "run", "values", params({ i }));
    expect(await laterReader.take(3)).toEqual(await log.list(thread, 5).then((l) => l.map((s) => s.event)));
    expect(seqs(await allReader.take(3))).toEqual([6, 7, 8]);
    expect(seqs(await endReader.take(3))).toEqual([6, 7, 8]);
  });

  it("a stream opened while events are being appended misses none and repeats none", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    const total = 60;
    const streams: Array<{ after: number | undefined; stream: ThreadEventStream }> = [];
    const appends: Promise<ThreadEvent>[] = [];
    for (const i of range(1, total)) {
      appends.push(log.append(thread, "run", "updates", params({ i })));
      // Streams open at different points of the race: some before any event is stored, some with a cursor.
      if (i % 10 === 1) streams.push({ after: undefined, stream: log.open(thread) });
      if (i % 10 === 5) streams.push({ after: 2, stream: log.open(thread, { after: 2 }) });
      if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(appends);
    cleanups.push(async () => streams.forEach((s) => s.stream.close()));
    const readers = streams.map(({ after, stream }) => ({ after, read: reader(stream) }));
    for (const { after, read } of readers) {
      const from = (after ?? 0) + 1;
      expect(seqs(await read.take(total - from + 1))).toEqual(range(from, total));
    }
    // Nothing more was queued: each stream's next event is the next one appended.
    await log.append(thread, "run", "marker", params(null));
    for (const { read } of readers) expect((await read.next()).value).toMatchObject({ seq: total + 1, method: "marker" });
  });

  it("close() ends the stream's iteration, delivers nothing more, and leaves the thread's other streams alone", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    await log.append(thread, "run", "values", params(1));
    const closed = log.open(thread);
    const kept = log.open(thread);
    cleanups.push(async () => kept.close());
    const closedReader = reader(closed);
    const keptReader = reader(kept);
    expect(seqs(await closedReader.take(1))).toEqual([1]);
    expect(seqs(await keptReader.take(1))).toEqual([1]);
    // A consumer waiting on the stream is released by close().
    const waiting = closedReader.next();
    closed.close();
    expect((await waiting).done).toBe(true);
    await log.append(thread, "run", "values", params(2));
    expect((await closedReader.next()).done).toBe(true);
    expect(seqs(await keptReader.take(1))).toEqual([2]);
  });

  it("after every stream of a thread closed, a stream opened again still gets live events", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    for (let round = 1; round <= 3; round += 1) {
      const stream = log.open(thread, { after: round - 1 });
      const read = reader(stream);
      await log.append(thread, "run", "values", params(round));
      expect(seqs(await read.take(1))).toEqual([round]);
      stream.close();
    }
  });

  it("breaking out of a for-await loop closes the stream: what it had buffered is discarded, a new iteration yields nothing", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    for (const i of range(1, 3)) await log.append(thread, "run", "values", params(i));
    const stream = log.open(thread);
    const seen: number[] = [];
    for await (const event of stream) {
      seen.push(event.seq);
      if (event.seq === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    expect((await reader(stream).next()).done).toBe(true);
  });
});

describe.each(sharedSignals)("ThreadEventLog across two engines on one $name database", (driver) => {
  it("an event appended through one engine reaches a stream opened on the other, in order, live and replayed", async () => {
    const opened = await openDriver(driver);
    const other = await opened.connect();
    const engines: Engine[] = [await startEngine(opened.storage, { workers: 0 }), await startEngine(other, { workers: 0 })];
    cleanups.push(async () => {
      for (const engine of engines) await engine.stop(0);
    });
    const [a, b] = engines as [Engine, Engine];
    const thread = crypto.randomUUID();
    await a.threadEvents.append(thread, "run-1", "lifecycle", params({ event: "running" }));
    const onB = b.threadEvents.open(thread);
    const lateOnB = b.threadEvents.open(thread, { after: 1 });
    cleanups.push(async () => [onB, lateOnB].forEach((s) => s.close()));
    const read = reader(onB);
    expect(seqs(await read.take(1))).toEqual([1]);
    for (const i of range(2, 30)) await a.threadEvents.append(thread, "run-1", "values", params({ i }));
    const live = await read.take(29);
    expect(seqs(live)).toEqual(range(2, 30));
    expect(live.map((e) => (e.params.data as { i: number }).i)).toEqual(range(2, 30));
    expect(seqs(await reader(lateOnB).take(29))).toEqual(range(2, 30));
    // And the other way round, both engines appending in turns.
    const onA = a.threadEvents.open(thread, { after: 30 });
    cleanups.push(async () => onA.close());
    for (const i of range(31, 40)) await (i % 2 === 0 ? a : b).threadEvents.append(thread, "run-2", "values", params({ i }));
    expect(seqs(await reader(onA).take(10))).toEqual(range(31, 40));
    expect(seqs(await read.take(10))).toEqual(range(31, 40));
  });

  it("a lost signal is recovered: the next event that arrives makes the stream read the missed one first", async () => {
    const opened = await openDriver(driver);
    const other = await opened.connect();
    const loud = logOver(opened.storage);
    const muted = logOver(opened.storage, { muted: true });
    const receiving = logOver(other);
    const thread = crypto.randomUUID();
    await loud.append(thread, "run", "values", params(1));
    const stream = receiving.open(thread);
    cleanups.push(async () => stream.close());
    const read = reader(stream);
    expect(seqs(await read.take(1))).toEqual([1]);
    // Appended by a process whose signals the receiving one never hears.
    await muted.append(thread, "run", "values", params(2));
    await muted.append(thread, "run", "values", params(3));
    await loud.append(thread, "run", "values", params(4));
    const events = await read.take(3);
    expect(seqs(events)).toEqual([2, 3, 4]);
    expect(events.map((e) => e.params.data)).toEqual([2, 3, 4]);
    await loud.append(thread, "run", "values", params(5));
    expect(seqs(await read.take(1))).toEqual([5]);
  });

  it("a lost signal of a thread's first event is recovered too (the stream opened on an empty thread)", async () => {
    const opened = await openDriver(driver);
    const other = await opened.connect();
    const loud = logOver(opened.storage);
    const muted = logOver(opened.storage, { muted: true });
    const thread = crypto.randomUUID();
    const watched = watchedEvents(other.events, `thread:${thread}`);
    const receiving = logOver(other, { events: watched.repo });
    const stream = receiving.open(thread);
    cleanups.push(async () => stream.close());
    // The stream has replayed (nothing) and is live: the first event's signal is then lost.
    await watched.listed;
    await muted.append(thread, "run", "lifecycle", params({ event: "running" }));
    await loud.append(thread, "run", "values", params(2));
    expect(seqs(await reader(stream).take(2))).toEqual([1, 2]);
  });

  it("a lost signal of a run's last event is recovered without a later event (the stream polls storage, as run streams do)", async () => {
    const opened = await openDriver(driver);
    const other = await opened.connect();
    const loud = logOver(opened.storage);
    const muted = logOver(opened.storage, { muted: true });
    const receiving = logOver(other);
    const thread = crypto.randomUUID();
    await loud.append(thread, "run", "lifecycle", params({ event: "running" }));
    const stream = receiving.open(thread);
    cleanups.push(async () => stream.close());
    const read = reader(stream, 20_000);
    expect(seqs(await read.take(1))).toEqual([1]);
    // The run's terminal lifecycle, whose signal is lost (a LISTEN connection being re-established):
    // nothing follows it until the thread's next run, which may never come.
    await muted.append(thread, "run", "lifecycle", params({ event: "completed" }));
    expect((await read.take(1))[0]).toMatchObject({ seq: 2, params: { data: { event: "completed" } } });
  });
});

describe.each(drivers)("thread event numbering after expiry on $name", (driver) => {
  it("a thread whose events all expired and were swept goes on numbering after its last event (a seq is never reused)", async () => {
    const { storage } = await openDriver(driver);
    const log = logOver(storage);
    const thread = crypto.randomUUID();
    await log.append(thread, "run-1", "values", params(1));
    await log.append(thread, "run-1", "values", params(2));
    const stream = log.open(thread);
    cleanups.push(async () => stream.close());
    const read = reader(stream);
    expect(seqs(await read.take(2))).toEqual([1, 2]);
    // The housekeeping sweep, once the TTL has passed (as seen from then).
    expect(await storage.events.deleteExpired(addMs(nowIso(), 2 * TTL_MS))).toBeGreaterThanOrEqual(2);
    expect(await log.list(thread)).toEqual([]);
    // The thread's next run, after an idle hour, on the same open stream (and for a client resuming with since: 2).
    const next = await log.append(thread, "run-2", "lifecycle", params({ event: "running" }));
    expect(next.seq).toBe(3);
    expect(seqs(await read.take(1))).toEqual([3]);
  });
});

describe.each(drivers)("protocol runs on $name", (driver) => {
  async function engineOn(): Promise<{ engine: Engine; storage: Storage }> {
    const { storage } = await openDriver(driver);
    const engine = await startEngine(storage);
    cleanups.push(() => engine.stop(0));
    return { engine, storage };
  }

  const rootLifecycle = (events: ThreadEvent[]) =>
    events.filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0).map((e) => e.params.data as Record<string, unknown>);

  async function threadEvents(engine: Engine, threadId: string) {
    const logged = await engine.threadEvents.list(threadId);
    expect(seqs(logged.map((l) => l.event))).toEqual(range(1, logged.length));
    return logged;
  }

  it("a run streams root lifecycle running, the graph's values, then completed; a stream opened first sees it all live", async () => {
    const { engine, storage } = await engineOn();
    const threadId = await newThread(storage);
    const stream = engine.threadEvents.open(threadId);
    cleanups.push(async () => stream.close());
    const run = await engine.createRun(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } },
      { threadId, protocol: {} },
    );
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    const logged = await threadEvents(engine, threadId);
    expect(logged.every((l) => l.runId === run.run_id)).toBe(true);
    const events = logged.map((l) => l.event);
    expect(rootLifecycle(events)).toEqual([
      { event: "running", graph_name: "echo" },
      { event: "completed", graph_name: "echo" },
    ]);
    expect(events[0]!.method).toBe("lifecycle");
    expect(events.at(-1)!.method).toBe("lifecycle");
    const values = events.filter((e) => e.method === "values" && e.params.namespace.length === 0);
    expect(values.length).toBeGreaterThan(0);
    const last = values.at(-1)!.params.data as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(last.messages.map((m) => m.content))).toContain("echo: hi");
    // Between the lifecycle events only: nothing of the run comes after its end.
    expect(events.slice(1, -1).some((e) => e.method === "lifecycle" && e.params.namespace.length === 0)).toBe(false);
    expect(await reader(stream).take(events.length)).toEqual(events);
  });

  it("a run that stops at interrupt() ends interrupted with input.requested; the resuming run starts where the thread's numbering left off", async () => {
    const { engine, storage } = await engineOn();
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "approval", input: { request: "x" } }, { threadId, protocol: {} });
    await engine.waitRun(first.run_id);
    const events = (await threadEvents(engine, threadId)).map((l) => l.event);
    expect(rootLifecycle(events).map((d) => d.event)).toEqual(["running", "interrupted"]);
    const requested = events.filter((e) => e.method === "input.requested");
    expect(requested).toHaveLength(1);
    const { interrupt_id, payload } = requested[0]!.params.data as { interrupt_id: string; payload: unknown };
    expect(payload).toEqual({ question: "approve x?" });
    expect(typeof interrupt_id).toBe("string");

    const second = await engine.createRun(
      { assistant_id: "approval", command: { resume: { [interrupt_id]: "yes" } } },
      { threadId, protocol: { answered: [interrupt_id] } },
    );
    expect((await engine.waitRun(second.run_id)).status).toBe("success");
    const all = await threadEvents(engine, threadId);
    const secondEvents = all.filter((l) => l.runId === second.run_id).map((l) => l.event);
    expect(secondEvents[0]!.seq).toBe(events.length + 1);
    expect(rootLifecycle(secondEvents).map((d) => d.event)).toEqual(["running", "completed"]);
    expect(secondEvents.find((e) => e.method === "input.answered")?.params.data).toEqual({ interrupt_ids: [interrupt_id] });
    expect(JSON.stringify(secondEvents.filter((e) => e.method === "values").at(-1)?.params.data)).toContain('"decision":"yes"');
  });

  it("a failing graph ends its run's lifecycle failed, with the error's message", async () => {
    const { engine, storage } = await engineOn();
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "failing", input: { messages: [] } }, { threadId, protocol: {} });
    expect((await engine.waitRun(run.run_id)).status).toBe("error");
    const events = (await threadEvents(engine, threadId)).map((l) => l.event);
    expect(rootLifecycle(events)).toEqual([
      { event: "running", graph_name: "failing" },
      { event: "failed", graph_name: "failing", error: "graph failed on purpose" },
    ]);
    expect(events.at(-1)!.method).toBe("lifecycle");
  });

  it("a run that is not a protocol run writes nothing to its thread's log", async () => {
    const { engine, storage } = await engineOn();
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } }, { threadId });
    await engine.waitRun(run.run_id);
    expect(await engine.threadEvents.list(threadId)).toEqual([]);
  });
});
