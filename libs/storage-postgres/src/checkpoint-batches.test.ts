import { randomUUID } from "node:crypto";
import { emptyCheckpoint, type Checkpoint, type PendingWrite } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WriteChain } from "@agent-server/core";
import { createTestSchema } from "@agent-server/testing/postgres";
import { RunAwarePostgresSaver } from "./checkpointer.js";

/** A graph call's chain of writes, as the engine keeps one (runs/run-saver.ts). */
function writeChain(): WriteChain & { failure?: { error: unknown } } {
  return {
    check() {
      if (this.failure) throw this.failure.error;
    },
    fail(error) {
      this.failure ??= { error };
    },
  };
}

interface Saver {
  saver: RunAwarePostgresSaver;
  pool: pg.Pool;
  schema: string;
  statements: string[];
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function openSaver(prefix: string): Promise<Saver> {
  const { url, schema, drop } = await createTestSchema(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  cleanups.push(async () => {
    await pool.end();
    await drop();
  });
  const statements: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements.push(typeof args[0] === "string" ? args[0] : "?");
    return query(...args);
  };
  const saver = new RunAwarePostgresSaver(pool, schema);
  await saver.setup();
  return { saver, pool, schema, statements };
}

/** Every row the saver keeps of `thread`, in key order. */
async function rowsOf({ pool, schema }: Saver, thread: string) {
  const s = `"${schema}"`;
  const read = async (sql: string) => (await pool.query(sql, [thread])).rows;
  return {
    checkpoints: await read(
      `SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata - 'thread_id' AS metadata FROM ${s}.checkpoints WHERE thread_id = $1 ORDER BY 1, 2`,
    ),
    blobs: await read(
      `SELECT checkpoint_ns, channel, version, type, blob FROM ${s}.checkpoint_blobs WHERE thread_id = $1 ORDER BY 1, 2, 3`,
    ),
    writes: await read(
      `SELECT checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${s}.checkpoint_writes WHERE thread_id = $1 ORDER BY 1, 2, 3, 4`,
    ),
  };
}

type Write =
  | { kind: "put"; id: string; values: Record<string, number>; versions: Record<string, string> }
  | { kind: "writes"; id: string; task: string; writes: PendingWrite[] };

const ids = fc.constantFrom("1ef00000-0000-6000-8000-000000000001", "1ef00000-0000-6000-8000-000000000002");
const channel = fc.constantFrom("a", "b");
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant("put" as const),
    id: ids,
    values: fc.dictionary(channel, fc.integer({ min: 0, max: 3 })),
    versions: fc.dictionary(channel, fc.constantFrom("1", "2")),
  }),
  fc.record({
    kind: fc.constant("writes" as const),
    id: ids,
    task: fc.constantFrom("task-1", "task-2"),
    writes: fc.array(fc.tuple(fc.constantFrom("x", "y", "__error__", "__interrupt__"), fc.integer({ min: 0, max: 3 })), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
);

const ts = new Date(0).toISOString();
function checkpoint(id: string, values: Record<string, number>, versions: Record<string, string>): Checkpoint {
  return { ...emptyCheckpoint(), id, ts, channel_values: values, channel_versions: versions };
}

const metadata = { source: "loop" as const, step: 0, parents: {} };
const config = (thread: string, id?: string) => ({
  configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: id, run_id: "r1" },
});

describe("a graph call's queued checkpoint writes on PostgreSQL", () => {
  let oneByOne: Saver;
  let queued: Saver;
  beforeAll(async () => {
    oneByOne = await openSaver("batch_seq");
    queued = await openSaver("batch_queued");
  });

  it("leave the rows the same writes leave one statement at a time, and the writes of one turn are one statement", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
        const thread = randomUUID();
        const checkpoints = writes.map((w) => (w.kind === "put" ? checkpoint(w.id, w.values, w.versions) : undefined));
        for (const [i, w] of writes.entries()) {
          if (w.kind === "put") await oneByOne.saver.put(config(thread), checkpoints[i]!, metadata, w.versions);
          else await oneByOne.saver.putWrites(config(thread, w.id), w.writes, w.task);
        }
        const chain = writeChain();
        const before = queued.statements.length;
        const committed: Promise<unknown>[] = [];
        for (const [i, w] of writes.entries()) {
          const pending =
            w.kind === "put"
              ? await queued.saver.queuePut(config(thread), checkpoints[i]!, metadata, w.versions, chain)
              : await queued.saver.queuePutWrites(config(thread, w.id), w.writes, w.task, chain);
          committed.push(pending.committed);
        }
        await Promise.all(committed);
        expect(queued.statements.length - before).toBe(1);
        expect(await rowsOf(queued, thread)).toEqual(await rowsOf(oneByOne, thread));
      }),
      { numRuns: 40 },
    );
  });

  it("a batch that fails fails its chain: the chain's later batches fail with it, unsent", async () => {
    const thread = randomUUID();
    const chain = writeChain();
    const s = `"${queued.schema}"`;
    await queued.pool.query(`CREATE FUNCTION ${s}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.checkpoint_id = 'refused' THEN RAISE EXCEPTION 'refused checkpoint'; END IF; RETURN NEW; END $$`);
    await queued.pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${s}.checkpoints FOR EACH ROW EXECUTE FUNCTION ${s}.refuse()`);
    try {
      const put = (id: string) => queued.saver.queuePut(config(thread), checkpoint(id, { a: 1 }, { a: id }), metadata, { a: id }, chain);
      const first = await put("kept");
      await first.committed;
      const refused = await put("refused");
      await new Promise((resolve) => setImmediate(resolve));
      const later = await put("after-the-gap");
      await expect(refused.committed).rejects.toThrow("refused checkpoint");
      const before = queued.statements.length;
      await expect(later.committed).rejects.toThrow("refused checkpoint");
      expect(queued.statements.length).toBe(before);
      expect(() => chain.check()).toThrow("refused checkpoint");
      expect((await rowsOf(queued, thread)).checkpoints.map((row) => row.checkpoint_id)).toEqual(["kept"]);
      // Another call's writes are not refused with it.
      const other = await queued.saver.queuePut(config(thread), checkpoint("elsewhere", {}, {}), metadata, {}, writeChain());
      await other.committed;
    } finally {
      await queued.pool.query(`DROP TRIGGER refuse ON ${s}.checkpoints`);
    }
  });
});
