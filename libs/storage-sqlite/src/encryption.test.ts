import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  aesKey,
  EncryptionKeyError,
  fieldCipher,
  KEY_CHECK_AAD,
  KEY_CHECK_VALUE,
  NO_ENCRYPTION,
  type FieldCipher,
  type Storage,
} from "@agent-server/core";
import { SEALED_BLOBS, SEALED_COLUMNS } from "./sealing.js";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";
import { filesContain, MARKER, PLAIN_TOPIC, readWorld, worldIds, writeWorld } from "../test/sealed-world.js";

const tmp = tempDir("agent-sqlite-sealed-");
afterAll(() => tmp.cleanup());

const A = aesKey("key-A-0123456789abcdef0123456789", "LANGGRAPH_AES_KEY");
const B = aesKey("key-B-0123456789abcdefgh", "LANGGRAPH_AES_KEY");
const sealingA = fieldCipher(A, [], ["secret"]);

const opened: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});
async function open(path: string, cipher: FieldCipher = NO_ENCRYPTION): Promise<SqliteStorage> {
  const s = await openSqliteStorage({ path, cipher });
  opened.push(s);
  return s;
}
async function close(s: SqliteStorage): Promise<void> {
  opened.splice(opened.indexOf(s), 1);
  await s.close();
}

/** Every stored value of the sealed columns that does not start as one sealed with `keyId` (SQL over the stored text). */
function notSealedWith(s: SqliteStorage, keyId: string): string[] {
  const out: string[] = [];
  for (const { table, column, mode } of SEALED_COLUMNS) {
    const sql =
      mode === "keys"
        ? `SELECT ${column} AS v FROM ${table} WHERE instr(${column}, '"secret":') > 0 AND instr(${column}, '"secret":{"$enc":"v1.${keyId}.') = 0`
        : mode === "message"
          ? `SELECT internal AS v FROM ${table} WHERE json_extract(internal, '$.message') IS NOT NULL
               AND substr(json_extract(internal, '$.message."$enc"'), 1, 20) IS NOT 'v1.${keyId}.'`
          : `SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL AND ${column} NOT IN ('{}', '[]', 'null')
               AND substr(${column}, 1, 29) IS NOT '{"$enc":"v1.${keyId}.'`;
    for (const row of s.db.prepare(sql).all() as { v: string }[]) out.push(`${table}.${column}: ${row.v.slice(0, 60)}`);
  }
  for (const { table, column } of SEALED_BLOBS) {
    const rows = s.db.prepare(`SELECT type FROM ${table} WHERE ${column} IS NOT NULL AND type NOT LIKE '%+aes'`).all();
    for (const row of rows) out.push(`${table}.${column}: ${JSON.stringify(row)}`);
  }
  return out;
}

describe("encryption at rest (SQLite)", () => {
  it("writes no byte of what users send to the file or the WAL with a key; without one the same scan finds it", async () => {
    const ids = worldIds(1);
    const sealedPath = tmp.file();
    const plainPath = tmp.file();
    const sealed = await open(sealedPath, sealingA);
    const plain = await open(plainPath);
    await writeWorld(sealed, ids);
    await writeWorld(plain, ids);
    const expected = await readWorld(plain, ids);
    expect(JSON.stringify(expected)).toContain(MARKER);
    expect(await readWorld(sealed, ids)).toEqual(expected);

    // Open (most of it still in the WAL), then closed (checkpointed into the file).
    expect(filesContain(sealedPath, MARKER)).toEqual({ db: false, wal: false });
    const plainOpen = filesContain(plainPath, MARKER);
    expect(plainOpen.db || plainOpen.wal).toBe(true);
    // Metadata stays plaintext except the sealed JSON key.
    const sealedOpen = filesContain(sealedPath, PLAIN_TOPIC);
    expect(sealedOpen.db || sealedOpen.wal).toBe(true);
    expect(notSealedWith(sealed, A.id)).toEqual([]);
    await close(sealed);
    await close(plain);
    expect(filesContain(sealedPath, MARKER)).toEqual({ db: false, wal: false });
    expect(filesContain(plainPath, MARKER).db).toBe(true);

    // Reopened with the same key, everything reads back as written.
    const reopened = await open(sealedPath, sealingA);
    expect(await readWorld(reopened, ids)).toEqual(expected);
    await close(reopened);

    // Without the key, a sealed read says which key it needs.
    const keyless = await open(sealedPath);
    const reads: Array<() => Promise<unknown>> = [
      () => keyless.threads.get(ids.thread),
      () => keyless.runs.get(ids.run),
      () => keyless.runs.getResult!(ids.run),
      () => keyless.store.get(["docs", "a"], ids.run),
      () => keyless.checkpointer.getTuple({ configurable: { thread_id: ids.thread, checkpoint_ns: "" } }),
      () => keyless.pushConfigs.get(ids.run, "c1"),
    ];
    for (const read of reads) {
      const error = await read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EncryptionKeyError);
      expect((error as EncryptionKeyError).keyId).toBe(A.id);
      expect((error as Error).message).toContain(A.id);
    }
  });

  it("keeps metadata searchable with a key; a configured JSON key is sealed in it and reads back", async () => {
    const s = await open(tmp.file(), sealingA);
    const ids = worldIds(2);
    await writeWorld(s, ids);
    const stored = s.db.prepare("SELECT metadata FROM threads WHERE thread_id = ?").pluck().get(ids.thread) as string;
    expect(stored).toContain(`"topic":"${PLAIN_TOPIC}"`);
    expect(stored).toContain(`"secret":{"$enc":"v1.${A.id}.`);
    expect((await s.threads.get(ids.thread))?.metadata).toEqual({ secret: MARKER, topic: PLAIN_TOPIC });
    // Empty values hold nothing and are written as they are.
    expect(s.db.prepare("SELECT interrupts FROM threads WHERE thread_id = ?").pluck().get(ids.thread)).toBe("{}");
    expect(s.db.prepare("SELECT config FROM threads WHERE thread_id = ?").pluck().get(ids.thread2)).toBe("{}");
    const byTopic = await s.threads.search({ metadata: { topic: PLAIN_TOPIC }, sort_by: "thread_id", sort_order: "asc" });
    expect(byTopic.map((t) => t.thread_id)).toEqual([ids.thread, ids.thread2]);
    // Sealed keys are opened by the filter function too, so searching on one still finds the row.
    expect((await s.threads.search({ metadata: { secret: MARKER } })).map((t) => t.thread_id)).toEqual([ids.thread]);
    expect((await s.runs.search({ thread_id: ids.thread2, metadata: { secret: MARKER } })).map((r) => r.run_id)).toEqual([ids.run]);
    expect((await s.assistants.search({ metadata: { topic: PLAIN_TOPIC } })).map((a) => a.assistant_id)).toEqual([ids.assistant]);
    expect((await s.crons.search({ filter: { secret: MARKER } })).map((c) => c.cron_id)).toEqual([ids.cron]);
    // A requeue's json_set on the run's metadata keeps the sealed key.
    expect((await s.runs.get(ids.run))?.metadata).toEqual({ secret: MARKER, topic: PLAIN_TOPIC });
  });

  it("answers values and store filters the same with and without a key", async () => {
    const results: unknown[] = [];
    for (const cipher of [NO_ENCRYPTION, sealingA]) {
      const s = await open(tmp.file(), cipher);
      for (let i = 0; i < 12; i++) {
        const thread_id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
        await s.threads.create({ thread_id, metadata: { i, even: i % 2 === 0 } });
        await s.threads.update(thread_id, { values: { n: i % 3, tags: [`t${i % 4}`], nested: { deep: i % 2 === 0 } } });
        await s.store.put(["docs", String(i % 2)], `k${i}`, { n: i % 3, tags: [`t${i % 4}`], text: `doc ${i}` });
      }
      const threads = (query: Parameters<Storage["threads"]["search"]>[0]) =>
        s.threads.search({ ...query, limit: 100, sort_by: "thread_id", sort_order: "asc" }).then((ts) => ts.map((t) => t.thread_id));
      const store = (filter: Record<string, unknown>, prefix = ["docs"]) =>
        s.store.search(prefix, { filter, limit: 100 }).then((items) => items.map((item) => item.key).sort());
      results.push([
        await threads({ values: { n: 1 } }),
        await threads({ values: { tags: ["t2"] } }),
        await threads({ values: { nested: { deep: true } }, metadata: { even: true } }),
        await threads({ values: { n: 7 } }),
        await s.threads.count({ values: { n: 0 } }),
        await store({ n: 2 }),
        await store({ n: { $ne: 2 } }, ["docs", "1"]),
        await store({ text: "doc 3" }),
        await s.store.search(["docs"], { filter: { n: 1 }, limit: 2, offset: 1 }).then((items) => items.length),
      ]);
    }
    expect(results[1]).toEqual(results[0]);
    expect((results[0] as unknown[][])[0]).toHaveLength(4);
  });

  it("rotates: plaintext and key-A values re-sealed with B in resumable batches; then B alone reads everything", async () => {
    const path = tmp.file();
    const before = worldIds(3);
    const withA = worldIds(4);
    const plain = await open(path);
    await writeWorld(plain, before, `${MARKER}-before`);
    await close(plain);
    const a = await open(path, sealingA);
    await writeWorld(a, withA);
    const expected = { before: await readWorld(a, before), withA: await readWorld(a, withA) };
    expect(notSealedWith(a, A.id).length).toBeGreaterThan(10); // the plaintext world
    await close(a);

    const rotating = fieldCipher(B, [A], ["secret"]);
    const first = await open(path, rotating);
    expect(await first.encryption.resealBatch(5)).toBe(5);
    // Stopped after one batch; another process carries on from what is left.
    await close(first);
    const second = await open(path, rotating);
    let total = 5;
    for (let n = await second.encryption.resealBatch(7); n > 0; n = await second.encryption.resealBatch(7)) {
      expect(n).toBeLessThanOrEqual(7);
      total += n;
    }
    expect(await second.encryption.resealBatch(7)).toBe(0);
    expect(notSealedWith(second, B.id)).toEqual([]);
    await close(second);
    // Each value once: 2 worlds of 25 cells (metadata only where a JSON key is set; empty values are not sealed).
    expect(total).toBe(2 * 25);

    const onlyB = await open(path, fieldCipher(B, [], ["secret"]));
    expect({ before: await readWorld(onlyB, before), withA: await readWorld(onlyB, withA) }).toEqual(expected);
    expect(await onlyB.encryption.resealBatch(100)).toBe(0);
  });

  it("picks up a value written behind the batches by a server still sealing with the old key", async () => {
    const path = tmp.file();
    const a = await open(path, sealingA);
    await writeWorld(a, worldIds(5));
    const b = await open(path, fieldCipher(B, [A], ["secret"]));
    while ((await b.encryption.resealBatch(1000)) > 0);
    const old = await open(path, fieldCipher(A, [B], ["secret"]));
    await old.threads.update(worldIds(5).thread2, { values: { text: "late" } });
    expect(await b.encryption.resealBatch(1000)).toBe(1);
    expect(await b.encryption.resealBatch(1000)).toBe(0);
    expect((await b.threads.get(worldIds(5).thread2))?.values).toEqual({ text: "late" });
  });

  it("records keys oldest first, once each, proves them by their check value and forgets them", async () => {
    const s = await open(tmp.file(), sealingA);
    expect(await s.encryption.keys()).toEqual([]);
    await s.encryption.recordKey({ keyId: A.id, check: sealingA.sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD) });
    await new Promise((resolve) => setTimeout(resolve, 2));
    await s.encryption.recordKey({ keyId: B.id, check: fieldCipher(B).sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD) });
    await s.encryption.recordKey({ keyId: A.id, check: "ignored" });
    const keys = await s.encryption.keys();
    expect(keys.map((k) => k.keyId)).toEqual([A.id, B.id]);
    expect(fieldCipher(B, [A]).openJson(keys[0]!.check, KEY_CHECK_AAD)).toBe(KEY_CHECK_VALUE);
    await s.encryption.forgetKey(A.id);
    expect((await s.encryption.keys()).map((k) => k.keyId)).toEqual([B.id]);
    // Without a primary key there is nothing to re-seal with.
    expect(await (await open(tmp.file())).encryption.resealBatch(10)).toBe(0);
  });

  it("sends the same statements with a key as without one (the query budget does not move)", async () => {
    const counts: number[][] = [];
    for (const cipher of [NO_ENCRYPTION, sealingA]) {
      const s = await open(tmp.file(), cipher);
      await writeWorld(s, worldIds(6)); // warm-up: every statement prepared once
      const ids = worldIds(7);
      counts.push(
        await countEach(s, [() => writeWorld(s, ids), () => readWorld(s, ids), () => s.threads.search({ values: { text: MARKER } })]),
      );
    }
    expect(counts[1]).toEqual(counts[0]);
  });
});

/** Statements executed (run/get/all/iterate, exec) and prepared by each call. */
async function countEach(s: SqliteStorage, calls: Array<() => Promise<unknown>>): Promise<number[]> {
  const stmt = Object.getPrototypeOf(s.db.prepare("SELECT 1")) as Record<string, (...args: unknown[]) => unknown>;
  const db = Object.getPrototypeOf(s.db) as Record<string, (...args: unknown[]) => unknown>;
  let n = 0;
  const patched: Array<[Record<string, (...args: unknown[]) => unknown>, string, (...args: unknown[]) => unknown]> = [];
  for (const [target, method] of [
    ...["run", "get", "all", "iterate"].map((m) => [stmt, m] as const),
    [db, "exec"] as const,
    [db, "prepare"] as const,
  ]) {
    const original = target[method]!;
    patched.push([target, method, original]);
    target[method] = function (this: unknown, ...args: unknown[]) {
      n += method === "prepare" ? 1000 : 1;
      return original.apply(this, args);
    };
  }
  try {
    const out: number[] = [];
    for (const call of calls) {
      n = 0;
      await call();
      out.push(n);
    }
    return out;
  } finally {
    for (const [target, method, original] of patched) target[method] = original;
  }
}
