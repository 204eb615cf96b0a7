import { randomBytes } from "node:crypto";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type pg from "pg";
import type { PostgresStorage } from "../src/storage.js";

/** A string no table holds unless something wrote it: what the scans look for. */
export const newMarker = () => `MARK-${randomBytes(6).toString("hex")}`;

/** The LANGGRAPH_AES_JSON_KEYS of these tests: `secret` is sealed wherever metadata has it. */
export const JSON_KEYS = ["secret"];

/** Fixed ids, each with `prefix`: the same scenario in two schemas reads back alike, twice in one schema apart. */
export const idsFor = (prefix: string) => ({
  assistant: `${prefix}a-1`,
  thread: `${prefix}t-1`,
  copy: `${prefix}t-2`,
  pointer: `${prefix}t-3`,
  run: `${prefix}r-1`,
  continuation: `${prefix}r-2`,
  pointerRun: `${prefix}r-3`,
  cron: `${prefix}c-1`,
  delivery: `${prefix}d-1`,
  config: `${prefix}p-1`,
  store: [`${prefix}docs`, "sub"],
});
export type ScenarioIds = ReturnType<typeof idsFor>;
export const IDS = idsFor("");

const State = Annotation.Root({ text: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

/** A real graph: its run writes checkpoints, channel blobs and pending writes as the engine's runs do. */
export function markerGraph(storage: PostgresStorage, marker: string) {
  return new StateGraph(State)
    .addNode("echo", (state: typeof State.State) => ({ text: [`echo ${state.text.at(-1)} ${marker}`] }))
    .addEdge(START, "echo")
    .addEdge("echo", END)
    .compile({ checkpointer: storage.checkpointer });
}

/**
 * `marker` through every repository path that stores what users send: assistant and thread metadata (a
 * sealed key only), thread config, values, interrupts and error (written, settled, and materialized
 * from a checkpoint pointer), a thread copy, run metadata, kwargs, internal A2A message, errors and
 * results (settle and recordResult), stream events (one and many), a store item, a cron, a webhook
 * waiting in the outbox, a push config's token and credentials, checkpoints with their blobs, pending
 * writes and metadata.
 */
export async function writeEverywhere(s: PostgresStorage, marker: string, IDS: ScenarioIds = idsFor("")): Promise<void> {
  await s.assistants.create({ assistant_id: IDS.assistant, graph_id: "agent", metadata: { plain: "visible", secret: `a ${marker}` } });
  await s.assistants.update(IDS.assistant, { metadata: { secret: `a2 ${marker}` } });
  await s.threads.create({
    thread_id: IDS.thread,
    metadata: { plain: "visible", secret: `t ${marker}` },
    config: { configurable: { note: `config ${marker}` } },
  });
  await markerGraph(s, marker).invoke(
    { text: [`input ${marker}`] },
    { configurable: { thread_id: IDS.thread, run_id: IDS.run }, metadata: { plain: "visible", secret: `cp ${marker}` } },
  );
  const latest = await s.checkpointer.getTuple({ configurable: { thread_id: IDS.thread, checkpoint_ns: "" } });
  await s.checkpointer.putWrites(latest!.config, [["text", [`pending ${marker}`]]], "task-1");
  await s.runs.create(
    {
      run_id: IDS.run,
      thread_id: IDS.thread,
      assistant_id: IDS.assistant,
      metadata: { plain: "visible", secret: `r ${marker}` },
      kwargs: {
        input: { text: [`input ${marker}`] },
        command: { resume: `resume ${marker}` },
        config: { configurable: { x: `cfg ${marker}` } },
        context: { c: `ctx ${marker}` },
      },
    },
    { internal: { captureResult: true, message: { role: "user", parts: [{ text: `a2a ${marker}` }] } } },
  );
  await s.runs.settle(IDS.run, "success", {
    result: { values: { text: [`result ${marker}`] }, reply: { zeta: `reply ${marker}`, a: 1 } },
    thread: { status: "interrupted", values: { text: [`values ${marker}`] }, interrupts: { task: [{ value: `ask ${marker}` }] } },
  });
  await s.runs.create(
    { run_id: IDS.continuation, thread_id: IDS.thread, assistant_id: IDS.assistant, kwargs: { input: `more ${marker}` } },
    { internal: { taskId: IDS.run, message: { parts: [{ text: `again ${marker}` }] } } },
  );
  await s.runs.transition(IDS.continuation, "error", { error: { error: "Boom", message: `failed ${marker}` } });
  await s.runs.recordResult(IDS.continuation, { values: { text: [`second ${marker}`] } });
  await s.threads.update(IDS.thread, { status: "error", error: { message: `thread error ${marker}` } });
  await s.events.append(IDS.run, "values", { text: [`event ${marker}`] }, { ttlMs: 600_000 });
  await s.events.appendMany(IDS.run, [{ event: "custom", data: `many ${marker}` }], { ttlMs: 600_000 });
  await s.store.put(IDS.store, "k", { text: `store ${marker}`, n: 1 }, { vectors: [{ field: "text", vector: [1, 0] }] });
  await s.crons.create({
    cron_id: IDS.cron,
    assistant_id: IDS.assistant,
    schedule: "0 0 1 1 *",
    next_run_date: "2031-01-01T00:00:00.000Z",
    payload: { input: `cron ${marker}` },
    metadata: { secret: `c ${marker}` },
  });
  await s.crons.update(IDS.cron, { payload: { input: `cron2 ${marker}` } });
  await s.deliveries.enqueue({
    delivery_id: IDS.delivery,
    kind: "a2a_push",
    url: "http://127.0.0.1:9/hook",
    headers: { "X-A2A-Notification-Token": `header ${marker}` },
    payload: { task: `push ${marker}` },
    run_id: IDS.run,
  });
  await s.pushConfigs.put({
    run_id: IDS.run,
    config_id: IDS.config,
    url: "http://127.0.0.1:9/hook",
    token: `token ${marker}`,
    authentication: { scheme: "Bearer", credentials: `cred ${marker}` },
  });
  await s.threads.copy(IDS.thread, IDS.copy);
  // A settlement leaving the values in the run's checkpoint: the first read keeps them in the row.
  await s.threads.create({ thread_id: IDS.pointer });
  await markerGraph(s, marker).invoke(
    { text: [`pointer ${marker}`] },
    { configurable: { thread_id: IDS.pointer, run_id: IDS.pointerRun } },
  );
  const pointed = await s.checkpointer.getTuple({ configurable: { thread_id: IDS.pointer, checkpoint_ns: "" } });
  const checkpointId = String(pointed!.config.configurable!.checkpoint_id);
  await s.threads.update(IDS.pointer, { valuesAt: { checkpoint_ns: "", checkpoint_id: checkpointId, keys: ["text"] } });
  await s.threads.get(IDS.pointer);
}

/** Everything `writeEverywhere` wrote, read back through the repositories (timestamps left out). */
export async function readEverything(s: PostgresStorage, IDS: ScenarioIds = idsFor("")): Promise<unknown> {
  const checkpoint = await s.checkpointer.getTuple({ configurable: { thread_id: IDS.thread, checkpoint_ns: "" } });
  const read = {
    assistant: await s.assistants.get(IDS.assistant),
    versions: await s.assistants.listVersions(IDS.assistant),
    thread: await s.threads.get(IDS.thread),
    header: await s.threads.getHeader(IDS.thread),
    copy: await s.threads.get(IDS.copy),
    pointer: (await s.threads.get(IDS.pointer))?.values,
    runs: await s.runs.search({ thread_id: IDS.thread }),
    copiedRuns: (await s.runs.search({ thread_id: IDS.copy })).map((r) => r.kwargs),
    internal: await s.runs.getInternal(IDS.run),
    task: await s.runs.getTask(IDS.run),
    error: await s.runs.getError(IDS.continuation),
    results: [await s.runs.getResult(IDS.run), await s.runs.getResult(IDS.continuation)],
    events: await s.events.list(IDS.run),
    store: [await s.store.get(IDS.store, "k"), await s.store.search([IDS.store[0]!], { query: [1, 0] })],
    cron: await s.crons.get(IDS.cron),
    delivery: await s.deliveries.get(IDS.delivery),
    pushConfig: await s.pushConfigs.get(IDS.run, IDS.config),
    checkpoint: {
      values: checkpoint?.checkpoint.channel_values,
      metadata: checkpoint?.metadata,
      writes: checkpoint?.pendingWrites,
    },
  };
  return JSON.parse(
    JSON.stringify(read, (key, value: unknown) => (/_at$|^next_run_date$|^ts$|^checkpoint_id$/.test(key) ? undefined : value)),
  );
}

/**
 * The tables of `schema` holding `marker`: every row of every table as text (`t::text`), where a bytea
 * column shows as hex, so the marker's hex is looked for too.
 */
export async function tablesHolding(pool: pg.Pool, schema: string, marker: string): Promise<string[]> {
  const hex = Buffer.from(marker).toString("hex");
  const { rows: tables } = await pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name",
    [schema],
  );
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${table}" t`);
    if (rows.some((r) => r.row.includes(marker) || r.row.toLowerCase().includes(hex))) found.push(table);
  }
  return found;
}
