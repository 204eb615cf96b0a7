import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import type { WriteChain } from "@agent-server/core";
import { openDatabase } from "./db.js";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";
import type { AgentSqliteSaver } from "./checkpointer.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const opened: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});

function checkpoint(id: string): Checkpoint {
  return { v: 4, id, ts: new Date().toISOString(), channel_values: { x: id }, channel_versions: { x: 1 }, versions_seen: {} };
}

/** A chain as the engine keeps one (runs/run-saver.ts): the first failure, then every later write refused. */
function chain(): WriteChain & { failure?: unknown } {
  const state: WriteChain & { failure?: unknown } = {
    check: () => {
      if (state.failure) throw state.failure;
    },
    fail: (error) => (state.failure ??= error),
  };
  return state;
}

describe("queued checkpoint writes (core QueueingCheckpointSaver)", () => {
  it("resolve once queued, commit in the order they were queued, and are durable once committed resolves", async () => {
    const path = tmp.file();
    const s = await openSqliteStorage({ path, walCheckpoints: "inline" });
    opened.push(s);
    const saver = s.checkpointer as AgentSqliteSaver;
    const reader = openDatabase(path);
    const threadId = randomUUID();
    const count = () => (reader.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?").get(threadId) as { n: number }).n;
    const root = { configurable: { thread_id: threadId, checkpoint_ns: "" } };

    const first = await saver.queuePut(root, checkpoint("1f0-1"), { source: "input", step: -1, parents: {} }, {});
    const writes = await saver.queuePutWrites(first.value, [["x", "w"]], "task-1");
    const second = await saver.queuePut(first.value, checkpoint("1f0-2"), { source: "loop", step: 0, parents: {} }, {});
    expect(count()).toBe(0); // queued, not yet committed
    await Promise.all([first.committed, writes.committed, second.committed]);
    expect(count()).toBe(2);
    const latest = await saver.getTuple(root);
    expect(latest?.checkpoint.id).toBe("1f0-2");
    expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe("1f0-1");
    expect((await saver.getTuple(first.value))?.pendingWrites).toEqual([["task-1", "x", "w"]]);
    reader.close();
  });

  it("a write that fails as it is applied fails the later writes of its chain; other writes of the turn commit", async () => {
    const s = await openSqliteStorage({ path: tmp.file(), walCheckpoints: "inline" });
    opened.push(s);
    const saver = s.checkpointer as AgentSqliteSaver;
    // A failure only the commit can meet (as a full disk would be): the row is refused inside the transaction.
    s.db.exec(
      `CREATE TEMP TRIGGER refuse_put BEFORE INSERT ON checkpoints WHEN NEW.checkpoint_id = '1f0-2'
       BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    const threadId = randomUUID();
    const other = randomUUID();
    const root = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    const run = chain();
    const one = await saver.queuePut(root, checkpoint("1f0-1"), { source: "input", step: -1, parents: {} }, {}, run);
    const two = await saver.queuePut(one.value, checkpoint("1f0-2"), { source: "loop", step: 0, parents: {} }, {}, run);
    const three = await saver.queuePut(two.value, checkpoint("1f0-3"), { source: "loop", step: 1, parents: {} }, {}, run);
    const elsewhere = await saver.queuePut(
      { configurable: { thread_id: other, checkpoint_ns: "" } },
      checkpoint("1f0-9"),
      {
        source: "input",
        step: -1,
        parents: {},
      },
      {},
    );
    const outcomes = await Promise.allSettled([one.committed, two.committed, three.committed, elsewhere.committed]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(String((run.failure as Error).message)).toMatch(/refused/);
    // The thread keeps what came before the gap, nothing after it.
    expect((await saver.getTuple(root))?.checkpoint.id).toBe("1f0-1");
    expect((await saver.getTuple({ configurable: { thread_id: other, checkpoint_ns: "" } }))?.checkpoint.id).toBe("1f0-9");
  });
});
