import { emptyCheckpoint, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestSchema } from "@agent-server/testing/postgres";
import { RunAwarePostgresSaver } from "./checkpointer.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Our saver and LangGraph's own, each in a schema of its own, to compare what they read back. */
async function savers() {
  const ours = await createTestSchema("saver_ours");
  const theirs = await createTestSchema("saver_theirs");
  const oursPool = new pg.Pool({ connectionString: ours.url, max: 2 });
  const theirsPool = new pg.Pool({ connectionString: theirs.url, max: 2 });
  cleanups.push(async () => {
    await oursPool.end();
    await theirsPool.end();
    await ours.drop();
    await theirs.drop();
  });
  const saver = new RunAwarePostgresSaver(oursPool, ours.schema);
  const reference = new PostgresSaver(theirsPool, undefined, { schema: theirs.schema });
  await saver.setup();
  await reference.setup();
  const statements: string[] = [];
  const query = oursPool.query.bind(oursPool) as (...args: unknown[]) => unknown;
  (oursPool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements.push(typeof args[0] === "string" ? args[0] : "?");
    return query(...args);
  };
  return { saver, reference, statements };
}

function checkpoint(id: string, values: Record<string, unknown>, versions: Record<string, string>): Checkpoint {
  return { ...emptyCheckpoint(), id, channel_values: values, channel_versions: versions };
}

describe("RunAwarePostgresSaver writes", () => {
  it("reads back what LangGraph's PostgresSaver reads back, writing each checkpoint and each task's writes in one statement", async () => {
    const { saver, reference, statements } = await savers();
    const thread = { configurable: { thread_id: "t1", checkpoint_ns: "", run_id: "r1" } };
    const first = checkpoint(
      "1ef00000-0000-6000-8000-000000000001",
      { messages: ["hi"], count: 1 },
      { messages: "1", count: "1", gone: "1" },
    );
    const second = checkpoint(
      "1ef00000-0000-6000-8000-000000000002",
      { messages: ["hi", "echo: hi"], count: 2 },
      { messages: "2", count: "2" },
    );
    const metadata = { source: "loop" as const, step: 0, parents: {} };
    for (const s of [saver, reference]) {
      const at1 = await s.put(thread, first, metadata, first.channel_versions);
      await s.putWrites(
        at1,
        [
          ["messages", "a"],
          ["count", 5],
        ],
        "task-a",
      );
      // Special writes upsert at their fixed index: the later interrupt replaces the earlier one.
      await s.putWrites(at1, [["__interrupt__", [{ value: "first" }]]], "task-b");
      await s.putWrites(at1, [["__interrupt__", [{ value: "second" }]]], "task-b");
      await s.putWrites(
        at1,
        [
          ["__error__", "e1"],
          ["__error__", "e2"],
        ],
        "task-c",
      );
      await s.put({ configurable: { ...at1.configurable, run_id: "r1" } }, second, { ...metadata, step: 1 }, { messages: "2", count: "2" });
    }
    expect(statements.filter((sql) => /^\s*(BEGIN|COMMIT)/.test(sql))).toEqual([]);
    // Two checkpoints and four putWrites: one statement each.
    expect(statements.filter((sql) => /INSERT/.test(sql))).toHaveLength(6);

    const at = (id: string) => ({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: id } });
    for (const id of [first.id, second.id]) {
      const [ours, theirs] = await Promise.all([saver.getTuple(at(id)), reference.getTuple(at(id))]);
      expect(ours?.checkpoint).toEqual(theirs?.checkpoint);
      expect(ours?.pendingWrites).toEqual(theirs?.pendingWrites);
      expect(ours?.parentConfig).toEqual(theirs?.parentConfig);
      expect(ours?.metadata).toMatchObject({ step: theirs?.metadata?.step, run_id: "r1" });
    }
    const firstTuple = await saver.getTuple(at(first.id));
    expect(firstTuple?.pendingWrites).toEqual(
      expect.arrayContaining([
        ["task-b", "__interrupt__", [{ value: "second" }]],
        ["task-c", "__error__", "e2"],
      ]),
    );
    expect(firstTuple?.checkpoint.channel_values).toEqual({ messages: ["hi"], count: 1 });
  });
});
