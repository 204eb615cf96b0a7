import type { Storage } from "@agent-server/core";
import { systemAssistantId } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { expect } from "vitest";

/** What `populate` wrote, for the comparisons. */
export interface Scenario {
  customAssistant: string;
  /** Echo thread: an A2A-like task (first run + continuation, both with results). */
  taskThread: string;
  firstRun: string;
  continuation: string;
  /** Approval thread stopped at interrupt() (pending interrupt writes on its latest checkpoint). */
  approvalThread: string;
  /** Parent graph thread: checkpoints in the root and in a subgraph namespace. */
  parentThread: string;
  /** A run of the parent thread that failed before the thread's successful run (its error is its own). */
  failedRun: string;
  cronIds: string[];
}

/**
 * Fills `storage` through a real engine run of the engine's test graphs: an assistant with two versions
 * (the first in effect), threads with checkpoints from real runs, runs with results and internal task
 * lineage, store items and crons. The engine is stopped again, so the store is quiet.
 */
export async function populate(storage: Storage): Promise<Scenario> {
  const engine = await startEngine(storage, { cronPollMs: 3_600_000 });
  try {
    const customAssistant = crypto.randomUUID();
    await storage.assistants.create({
      assistant_id: customAssistant,
      graph_id: "echo",
      name: "echo v1",
      description: "first version",
      config: { configurable: { tone: "dry" } },
      metadata: { team: "a" },
    });
    await storage.assistants.update(customAssistant, { name: "echo v2", metadata: { team: "b", extra: 1 } });
    await storage.assistants.setLatest(customAssistant, 1);

    const taskThread = crypto.randomUUID();
    await storage.threads.create({ thread_id: taskThread, metadata: { owner: "alice" } });
    const first = await engine.createRunAndWait(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "first" }] } },
      { threadId: taskThread, internal: { captureResult: true } },
    );
    const continuation = await engine.createRunAndWait(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "second" }] } },
      { threadId: taskThread, internal: { captureResult: true, taskId: first.run.run_id } },
    );
    expect([first.end.status, continuation.end.status]).toEqual(["success", "success"]);

    const approvalThread = crypto.randomUUID();
    await storage.threads.create({ thread_id: approvalThread });
    await engine.createRunAndWait({ assistant_id: "approval", input: { request: "deploy" } }, { threadId: approvalThread });
    expect((await storage.threads.get(approvalThread))?.status).toBe("interrupted");

    const parentThread = crypto.randomUUID();
    await storage.threads.create({ thread_id: parentThread });
    const failed = await engine.createRunAndWait(
      { assistant_id: "failing", input: { messages: [{ role: "user", content: "boom" }] } },
      { threadId: parentThread },
    );
    expect(failed.end.status).toBe("error");
    await engine.createRunAndWait(
      { assistant_id: "parent", input: { messages: [{ role: "user", content: "nested" }] } },
      { threadId: parentThread },
    );

    await storage.store.put(["users", "u1"], "prefs", { theme: "dark", sizes: [1, 2] });
    await storage.store.put(["docs"], "readme", { text: "hello" });

    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const cronIds = [crypto.randomUUID(), crypto.randomUUID()];
    await storage.crons.create({
      cron_id: cronIds[0],
      assistant_id: systemAssistantId("echo"),
      thread_id: taskThread,
      schedule: "0 * * * *",
      payload: { input: { messages: [{ role: "user", content: "tick" }] } },
      metadata: { kind: "hourly" },
      next_run_date: inAnHour,
    });
    await storage.crons.create({
      cron_id: cronIds[1],
      assistant_id: customAssistant,
      schedule: "30 2 * * *",
      next_run_date: inAnHour,
      on_run_completed: "keep",
      enabled: false,
    });
    return {
      customAssistant,
      taskThread,
      firstRun: first.run.run_id,
      continuation: continuation.run.run_id,
      approvalThread,
      parentThread,
      failedRun: failed.run.run_id,
      cronIds,
    };
  } finally {
    await engine.stop(1000);
  }
}

/** Every checkpoint of a thread, normalized for comparison across savers. */
export async function checkpointsOf(storage: Storage, threadId: string): Promise<unknown[]> {
  const out: { key: string; value: unknown }[] = [];
  for await (const tuple of storage.checkpointer.list({ configurable: { thread_id: threadId } })) {
    const c = tuple.config.configurable!;
    out.push({
      key: `${c.checkpoint_ns}/${c.checkpoint_id}`,
      value: {
        ns: c.checkpoint_ns,
        id: c.checkpoint_id,
        parent: tuple.parentConfig?.configurable?.checkpoint_id ?? null,
        checkpoint: tuple.checkpoint,
        metadata: tuple.metadata,
        writes: [...(tuple.pendingWrites ?? [])].sort((a, b) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`)),
      },
    });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key)).map((e) => e.value);
}

/** Everything `populate` wrote reads the same from `target` as from `source` (timestamps: created_at only). */
export async function expectSameStore(source: Storage, target: Storage, s: Scenario): Promise<void> {
  const withoutUpdated = <T extends { updated_at?: string }>(row: T | null) => {
    if (!row) return row;
    const { updated_at: _, ...rest } = row;
    return rest;
  };
  for (const assistant of await source.assistants.search({ limit: 100 })) {
    expect(withoutUpdated(await target.assistants.get(assistant.assistant_id))).toEqual(withoutUpdated(assistant));
  }
  const versions = async (storage: Storage) =>
    (await storage.assistants.listVersions(s.customAssistant)).map(({ created_at: _, ...v }) => v);
  expect(await versions(target)).toEqual(await versions(source));
  expect((await target.assistants.get(s.customAssistant))?.version).toBe(1);

  for (const threadId of [s.taskThread, s.approvalThread, s.parentThread]) {
    expect(withoutUpdated(await target.threads.get(threadId))).toEqual(withoutUpdated(await source.threads.get(threadId)));
    const checkpoints = await checkpointsOf(source, threadId);
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(await checkpointsOf(target, threadId)).toEqual(checkpoints);
    // The thread's current state, as a graph reads it.
    const latest = async (storage: Storage) =>
      (await storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))?.checkpoint;
    expect(await latest(target)).toEqual(await latest(source));
    const runs = await source.runs.search({ thread_id: threadId, limit: 100 });
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) {
      expect(withoutUpdated(await target.runs.get(run.run_id))).toEqual(withoutUpdated(run));
      expect(await target.runs.getInternal(run.run_id)).toEqual(await source.runs.getInternal(run.run_id));
      expect(await target.runs.getResult!(run.run_id)).toEqual(await source.runs.getResult!(run.run_id));
      expect(await target.runs.getError(run.run_id)).toEqual(await source.runs.getError(run.run_id));
    }
  }
  // The failed run keeps its own error, though its thread's error was cleared by the run after it.
  expect(await target.runs.getError(s.failedRun)).toEqual({ error: "Error", message: "graph failed on purpose" });
  expect((await target.threads.get(s.parentThread))?.error).toBeNull();
  expect(await target.runs.getResult!(s.firstRun)).toMatchObject({ values: { messages: expect.any(Array) } });
  expect(await target.runs.getInternal(s.continuation)).toEqual({ captureResult: true, taskId: s.firstRun });

  const items = async (storage: Storage) =>
    (await storage.store.search([], { limit: 100 })).map(({ namespace, key, value }) => ({ namespace, key, value }));
  const sortItems = (list: { namespace: string[]; key: string }[]) =>
    list.sort((a, b) => `${a.namespace}/${a.key}`.localeCompare(`${b.namespace}/${b.key}`));
  expect(sortItems(await items(target))).toEqual(sortItems(await items(source)));

  for (const cronId of s.cronIds) {
    const strip = (cron: Awaited<ReturnType<Storage["crons"]["get"]>>) => {
      if (!cron) return cron;
      const { created_at: _, updated_at: __, ...rest } = cron;
      return rest;
    };
    expect(strip(await target.crons.get(cronId))).toEqual(strip(await source.crons.get(cronId)));
  }
}
