import {
  aesKey,
  EncryptionKeyError,
  fieldCipher,
  KEY_CHECK_AAD,
  KEY_CHECK_VALUE,
  NO_ENCRYPTION,
  type FieldCipher,
} from "@agent-server/core";
import { StatementCounter } from "@agent-server/testing";
import { postgresUrl } from "@agent-server/testing/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStorage, type PostgresStorage } from "./storage.js";
import { IDS, JSON_KEYS, markerGraph, newMarker, readEverything, tablesHolding, writeEverywhere } from "../test/sealed-scenario.js";
import { TestStorages } from "../test/storages.js";

const KEY = aesKey("encryption-test-key-0123456789ab", "test key");
const cipher = fieldCipher(KEY, [], JSON_KEYS);
const sealed = new TestStorages(cipher);
const plain = new TestStorages();
afterAll(async () => {
  await Promise.all([sealed.cleanup(), plain.cleanup()]);
});

/** A second storage (own pool) on `s`'s schema, opened with `with` instead of `s`'s cipher. */
const reopenedWith = (s: PostgresStorage, withCipher: FieldCipher) =>
  openPostgresStorage({ connectionString: postgresUrl(), schema: s.schema, cipher: withCipher });

/** The row of `table` as stored, as SQL sees it. */
async function stored(s: PostgresStorage, sql: string, values: unknown[] = []): Promise<Record<string, unknown>> {
  const { rows } = await s.pool.query(sql.replaceAll("$schema", `"${s.schema}"`), values);
  return rows[0] as Record<string, unknown>;
}

describe("encryption at rest on PostgreSQL", () => {
  it("with a key no table holds the marker; without one the same scan finds it; both read back alike", async () => {
    const marker = newMarker();
    const [withKey, withoutKey] = await Promise.all([sealed.create(), plain.create()]);
    await writeEverywhere(withKey, marker);
    await writeEverywhere(withoutKey, marker);

    expect(await tablesHolding(withKey.pool, withKey.schema, marker)).toEqual([]);
    // The scan can see: every table that holds what users send.
    expect(await tablesHolding(withoutKey.pool, withoutKey.schema, marker)).toEqual([
      "assistant_versions",
      "assistants",
      "checkpoint_blobs",
      "checkpoint_writes",
      "checkpoints",
      "crons",
      "deliveries",
      "push_configs",
      "run_events",
      "run_results",
      "runs",
      "store_items",
      "threads",
    ]);

    const [opened, plaintext] = await Promise.all([readEverything(withKey), readEverything(withoutKey)]);
    expect(opened).toEqual(plaintext);
    expect(JSON.stringify(opened).split(marker).length).toBeGreaterThan(40);
  });

  it("a driver without the key reads a sealed value as EncryptionKeyError naming the key", async () => {
    const s = await sealed.create();
    await writeEverywhere(s, newMarker());
    const noKey = await reopenedWith(s, NO_ENCRYPTION);
    try {
      const reads: Array<() => Promise<unknown>> = [
        () => noKey.threads.get(IDS.thread),
        () => noKey.runs.get(IDS.run),
        () => noKey.runs.getResult(IDS.run),
        () => noKey.runs.getInternal(IDS.run),
        () => noKey.store.get(["docs", "sub"], "k"),
        () => noKey.events.list(IDS.run),
        () => noKey.crons.get(IDS.cron),
        () => noKey.deliveries.get(IDS.delivery),
        () => noKey.pushConfigs.get(IDS.run, IDS.config),
        () => noKey.checkpointer.getTuple({ configurable: { thread_id: IDS.thread, checkpoint_ns: "" } }),
      ];
      for (const read of reads) {
        const error = await read().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, String(read)).toBeInstanceOf(EncryptionKeyError);
        expect((error as EncryptionKeyError).keyId).toBe(KEY.id);
        expect((error as Error).message).toContain(KEY.id);
      }
      // Another key is no better than none.
      const other = await reopenedWith(s, fieldCipher(aesKey("another-key-0123456789abcdef0123", "other")));
      await expect(other.threads.get(IDS.thread)).rejects.toThrow(KEY.id);
      await other.close();
    } finally {
      await noKey.close();
    }
  });

  it("metadata stays plaintext and searchable; a LANGGRAPH_AES_JSON_KEYS key is sealed in place and reads back", async () => {
    const s = await sealed.create();
    const marker = newMarker();
    await s.threads.create({ thread_id: "m1", metadata: { plain: "visible", secret: marker, nested: { secret: [marker] } } });
    await s.threads.create({ thread_id: "m2", metadata: { plain: "other", secret: "x" } });
    const row = await stored(s, `SELECT metadata FROM $schema.threads WHERE thread_id = 'm1'`);
    const metadata = row.metadata as Record<string, Record<string, unknown>>;
    expect(metadata.plain).toBe("visible");
    expect(Object.keys(metadata.secret!)).toEqual(["$enc"]);
    expect(Object.keys(metadata.nested!.secret as object)).toEqual(["$enc"]);
    expect((await s.threads.get("m1"))?.metadata).toEqual({ plain: "visible", secret: marker, nested: { secret: [marker] } });

    const ids = async (q: Parameters<typeof s.threads.search>[0]) => (await s.threads.search(q)).map((t) => t.thread_id);
    expect(await ids({ metadata: { plain: "visible" } })).toEqual(["m1"]);
    expect(await ids({ filter: { plain: { $eq: "other" } } })).toEqual(["m2"]);
    // A sealed key is matched in the process, on opened metadata.
    expect(await ids({ metadata: { secret: marker } })).toEqual(["m1"]);
    expect(await ids({ filter: { secret: "x" } })).toEqual(["m2"]);
    expect(await s.threads.count({ metadata: { nested: { secret: [marker] } } })).toBe(1);
    // Metadata merges keep sealed values sealed.
    await s.threads.update("m1", { metadata: { plain: "merged" } });
    expect((await s.threads.get("m1"))?.metadata).toMatchObject({ plain: "merged", secret: marker });
    expect(await tablesHolding(s.pool, s.schema, marker)).toEqual([]);
  });

  it("a result reads back as the very document it was written as, sealed in both result columns", async () => {
    const s = await sealed.create();
    await s.assistants.create({ assistant_id: "a", graph_id: "agent" });
    await s.threads.create({ thread_id: "t" });
    await s.runs.create({ run_id: "r", thread_id: "t", assistant_id: "a" });
    const result = {
      values: { zeta: 1, a: 2, mm: { b: 1, a: 2 }, list: [{ yy: 1, x: 2, longer: { d: 4, c: 3 } }] },
      reply: { z: 1, b: 2 },
    };
    await s.runs.recordResult("r", result);
    expect(JSON.stringify(await s.runs.getResult("r"))).toBe(JSON.stringify(result));
    const row = await stored(s, `SELECT result, result_text::text AS text FROM $schema.run_results`);
    expect(Object.keys(row.result as object)).toEqual(["$enc"]);
    expect(JSON.parse(row.text as string)).toEqual(row.result);
  });

  it("sends the same statements with a key as without (searches without a sealed filter)", async () => {
    const [withKey, withoutKey] = await Promise.all([sealed.create(), plain.create()]);
    const counted = async (s: PostgresStorage) => {
      const counter = new StatementCounter(s);
      try {
        const log = await counter.count(async () => {
          const marker = "same";
          await writeEverywhere(s, marker);
          await readEverything(s);
          await s.threads.search({ metadata: { plain: "visible" }, status: "error" });
          await s.threads.count({ metadata: { plain: "visible" } });
          await s.store.search(["docs"], { authFilter: { namespace: { $contains: "docs" } }, refreshTtl: true });
          await s.runs.claimNext({ owner: "w", leaseMs: 1000 });
          await s.deliveries.claimDue({ now: new Date().toISOString(), limit: 5, leaseMs: 1000 });
          await markerGraph(s, marker).invoke({ text: ["again"] }, { configurable: { thread_id: IDS.copy, run_id: "r-9" } });
        }, 50);
        return log.statements.map((sql) => sql.replaceAll(s.schema, "<schema>"));
      } finally {
        counter.uninstall();
      }
    };
    const without = await counted(withoutKey);
    const within = await counted(withKey);
    expect(within.length).toBeGreaterThan(60);
    expect(within).toEqual(without);
  });

  it("records keys (oldest first, once), proves them by their check value, forgets them", async () => {
    const s = await sealed.create();
    const second = fieldCipher(aesKey("second-key-0123456789abcdef01234", "second"));
    await s.encryption.recordKey({ keyId: KEY.id, check: cipher.sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD) });
    await s.encryption.recordKey({ keyId: second.keyId!, check: second.sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD) });
    await s.encryption.recordKey({ keyId: KEY.id, check: "ignored: recorded already" });
    const keys = await s.encryption.keys();
    expect(keys.map((k) => k.keyId)).toEqual([KEY.id, second.keyId]);
    expect(cipher.openJson(keys[0]!.check, KEY_CHECK_AAD)).toBe(KEY_CHECK_VALUE);
    await s.encryption.forgetKey(KEY.id);
    expect((await s.encryption.keys()).map((k) => k.keyId)).toEqual([second.keyId]);
  });
});
