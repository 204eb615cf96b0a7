import { existsSync, readFileSync } from "node:fs";
import { emptyCheckpoint, type Checkpoint } from "@langchain/langgraph-checkpoint";
import type { Storage } from "@agent-server/core";

/** What every repository path below writes; the encryption tests look for its bytes in the files. */
export const MARKER = "MARKER-c0ffee-5eal";
/** A metadata value under a key that is not sealed: plaintext with or without a key. */
export const PLAIN_TOPIC = "plain-topic-4242";

/** Fixed ids (`n` apart per world), so two files written with and without a key read back the same. */
export function worldIds(n = 0) {
  const id = (i: number) => `00000000-0000-4000-8000-${String(n * 100 + i).padStart(12, "0")}`;
  return {
    assistant: id(1),
    thread: id(2),
    thread2: id(3),
    run: id(4),
    run2: id(5),
    cron: id(6),
    delivery: id(7),
    checkpoint: `1f000000-0000-6000-8000-${String(n * 100 + 8).padStart(12, "0")}`,
  };
}
export type WorldIds = ReturnType<typeof worldIds>;

const meta = (m: string) => ({ secret: m, topic: PLAIN_TOPIC });

/**
 * Writes `marker` through every path that stores user content: thread values (a checkpoint pointed to and
 * then read, and an update), config, interrupts and error; run kwargs, A2A message, result, error; events;
 * a store item (with a vector); a cron; a delivery (payload and token header); a push config; a checkpoint
 * and a pending write. Metadata everywhere carries `secret` (a sealed JSON key) and a plaintext topic.
 */
export async function writeWorld(s: Storage, ids: WorldIds, marker = MARKER): Promise<void> {
  await s.assistants.create({ assistant_id: ids.assistant, graph_id: "g", metadata: meta(marker) });
  await s.threads.create({ thread_id: ids.thread, metadata: meta(marker), config: { configurable: { note: marker } } });
  const checkpoint: Checkpoint = {
    ...emptyCheckpoint(),
    id: ids.checkpoint,
    channel_values: { messages: [`${marker}-checkpoint`] },
    channel_versions: { messages: 1 },
  };
  const config = await s.checkpointer.put(
    { configurable: { thread_id: ids.thread, checkpoint_ns: "" } },
    checkpoint,
    {
      source: "loop",
      step: 0,
      parents: {},
    },
    {},
  );
  await s.checkpointer.putWrites(config, [["messages", `${marker}-write`]], "task-1");
  await s.threads.update(ids.thread, { valuesAt: { checkpoint_ns: "", checkpoint_id: ids.checkpoint, keys: ["messages"] } });
  await s.threads.get(ids.thread); // the pointer read keeps the values in the row

  await s.threads.create({ thread_id: ids.thread2, metadata: { topic: PLAIN_TOPIC } });
  await s.threads.update(ids.thread2, { values: { text: marker }, error: { message: marker } });
  await s.runs.create(
    { run_id: ids.run, thread_id: ids.thread2, assistant_id: ids.assistant, metadata: meta(marker), kwargs: { input: { text: marker } } },
    { internal: { captureResult: true, message: { parts: [{ kind: "text", text: marker }] } } },
  );
  await s.runs.settle!(ids.run, "success", {
    result: { values: { text: marker }, reply: marker, interrupts: [{ value: marker }] },
    thread: { status: "idle", values: { text: `${marker}-settled` }, interrupts: { task: [{ value: marker }] } },
  });
  await s.runs.create({ run_id: ids.run2, thread_id: ids.thread2, assistant_id: ids.assistant, kwargs: { command: { resume: marker } } });
  await s.runs.transition(ids.run2, "error", { error: { error: "ValueError", message: `bad input ${marker}` } });

  await s.events.append(ids.run, "values", { text: marker }, { ttlMs: 60_000 });
  await s.events.appendMany!(ids.run, [{ event: "updates", data: { node: { text: marker } } }], { ttlMs: 60_000 });
  await s.store.put(["docs", "a"], ids.run, { text: marker, n: 1 }, { vectors: [{ field: "text", vector: [0.6, 0.8, 0] }] });
  await s.crons.create({
    cron_id: ids.cron,
    assistant_id: ids.assistant,
    schedule: "0 0 * * *",
    payload: { input: { text: marker } },
    metadata: meta(marker),
    next_run_date: "2999-01-01T00:00:00.000Z",
  });
  await s.deliveries.enqueue({
    delivery_id: ids.delivery,
    kind: "a2a_push",
    url: "http://127.0.0.1:9/push",
    headers: { "X-A2A-Notification-Token": marker },
    payload: { text: marker },
    run_id: ids.run,
  });
  await s.pushConfigs!.put({
    run_id: ids.run,
    config_id: "c1",
    url: "http://127.0.0.1:9/push",
    token: marker,
    authentication: { scheme: "Bearer", credentials: marker },
  });
}

/** Everything `writeWorld` wrote, as the repositories read it back (timestamps left out). */
export async function readWorld(s: Storage, ids: WorldIds) {
  const pick = <T extends object, K extends keyof T>(value: T | null | undefined, ...keys: K[]) =>
    value ? Object.fromEntries(keys.map((k) => [k, value[k]])) : value;
  const tuple = await s.checkpointer.getTuple({ configurable: { thread_id: ids.thread, checkpoint_ns: "" } });
  const history = [];
  for await (const t of s.checkpointer.list({ configurable: { thread_id: ids.thread } }, { filter: { source: "loop" } })) {
    history.push([t.checkpoint.channel_values, t.metadata?.source, t.pendingWrites]);
  }
  return {
    assistant: pick(await s.assistants.get(ids.assistant), "metadata"),
    thread: pick(await s.threads.get(ids.thread), "metadata", "config", "values", "interrupts", "error"),
    thread2: pick(await s.threads.get(ids.thread2), "metadata", "values", "interrupts", "error", "status"),
    run: pick(await s.runs.get(ids.run), "metadata", "kwargs", "status"),
    run2: pick(await s.runs.get(ids.run2), "kwargs", "status"),
    internal: await s.runs.getInternal(ids.run),
    result: await s.runs.getResult!(ids.run),
    error: await s.runs.getError(ids.run2),
    events: await s.events.list(ids.run),
    item: pick(await s.store.get(["docs", "a"], ids.run), "namespace", "key", "value"),
    cron: pick(await s.crons.get(ids.cron), "payload", "metadata"),
    delivery: pick(await s.deliveries.get(ids.delivery), "payload", "headers"),
    push: pick(await s.pushConfigs!.get(ids.run, "c1"), "token", "authentication"),
    checkpoint: tuple && [tuple.checkpoint.channel_values, tuple.metadata?.source, tuple.pendingWrites],
    history,
  };
}

/** Whether `text`'s bytes are anywhere in the database file or its WAL (each read whole, as bytes). */
export function filesContain(path: string, text: string): { db: boolean; wal: boolean } {
  const needle = Buffer.from(text, "utf8");
  const has = (file: string) => existsSync(file) && readFileSync(file).includes(needle);
  return { db: has(path), wal: has(`${path}-wal`) };
}
