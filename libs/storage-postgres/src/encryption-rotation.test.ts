import { aesKey, fieldCipher, NO_ENCRYPTION, type AesKey, type FieldCipher } from "@agent-server/core";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStorage, type PostgresStorage } from "./storage.js";
import { idsFor, JSON_KEYS, newMarker, readEverything, tablesHolding, writeEverywhere } from "../test/sealed-scenario.js";

const A = aesKey("rotation-key-A-0123456789abcdef0", "key A");
const B = aesKey("rotation-key-B-0123456789abcdef0", "key B");
const cipherOf = (primary: AesKey | undefined, fallbacks: AesKey[] = []): FieldCipher =>
  primary ? fieldCipher(primary, fallbacks, JSON_KEYS) : NO_ENCRYPTION;

const schemas: TestSchema[] = [];
const opened: PostgresStorage[] = [];
afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await Promise.allSettled(schemas.map((s) => s.drop()));
});

async function open(schema: TestSchema, cipher: FieldCipher): Promise<PostgresStorage> {
  const storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema, cipher });
  opened.push(storage);
  return storage;
}

async function freshSchema(): Promise<TestSchema> {
  const schema = await createTestSchema("rot");
  schemas.push(schema);
  return schema;
}

/** Whether any row of the schema still holds something sealed with `key` (JSON or blob form). */
async function sealedWith(s: PostgresStorage, key: AesKey): Promise<string[]> {
  const json = await tablesHolding(s.pool, s.schema, `v1.${key.id}.`);
  const blobPrefix = Buffer.concat([Buffer.from("AGS1"), Buffer.from([key.id.length]), Buffer.from(key.id)]).toString("latin1");
  const blobs = await tablesHolding(s.pool, s.schema, blobPrefix);
  return [...new Set([...json, ...blobs])].sort();
}

describe("key rotation (resealBatch)", () => {
  it("moves plaintext and key A's values to key B, batch by batch, resumable; B alone reads everything after", async () => {
    const schema = await freshSchema();
    const [plainMarker, markerA] = [newMarker(), newMarker()];
    const [plainIds, idsA] = [idsFor("p-"), idsFor("k-")];
    // Written before a key was set, then with key A.
    await writeEverywhere(await open(schema, cipherOf(undefined)), plainMarker, plainIds);
    const withA = await open(schema, cipherOf(A));
    await writeEverywhere(withA, markerA, idsA);
    const expected = [await readEverything(withA, plainIds), await readEverything(withA, idsA)];
    expect(await tablesHolding(withA.pool, withA.schema, plainMarker)).not.toEqual([]);
    expect(await sealedWith(withA, A)).toEqual(expect.arrayContaining(["checkpoint_blobs", "checkpoint_writes", "runs", "threads"]));

    // A process rotating (primary B, A to open): one batch, then it stops.
    const first = await open(schema, cipherOf(B, [A]));
    expect(await first.encryption.resealBatch(7)).toBe(7);
    await first.close();
    // Another process carries on from what is left.
    const rotator = await open(schema, cipherOf(B, [A]));
    let total = 7;
    const sizes: number[] = [];
    for (let n = await rotator.encryption.resealBatch(50); n > 0; n = await rotator.encryption.resealBatch(50)) {
      sizes.push(n);
      total += n;
    }
    expect(sizes.every((n) => n <= 50)).toBe(true);
    expect(total).toBeGreaterThan(60);
    expect(await rotator.encryption.resealBatch(50)).toBe(0);

    expect(await tablesHolding(rotator.pool, rotator.schema, plainMarker)).toEqual([]);
    expect(await tablesHolding(rotator.pool, rotator.schema, markerA)).toEqual([]);
    expect(await sealedWith(rotator, A)).toEqual([]);
    const withB = await open(schema, cipherOf(B));
    expect([await readEverything(withB, plainIds), await readEverything(withB, idsA)]).toEqual(expected);
    expect(await withB.encryption.resealBatch(100)).toBe(0);
  });

  it("never writes back over what a serving process wrote meanwhile: a locked row waits for its turn", async () => {
    const schema = await freshSchema();
    const withA = await open(schema, cipherOf(A));
    for (let i = 0; i < 20; i++) {
      await withA.threads.create({ thread_id: `t${i}` });
      await withA.threads.update(`t${i}`, { values: { n: i } });
    }
    const rotator = await open(schema, cipherOf(B, [A]));
    const server = await open(schema, cipherOf(B, [A]));
    // A serving process's transaction holds t7 while the rotation runs, and writes it anew.
    const client = await withA.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT 1 FROM "${schema.schema}".threads WHERE thread_id = 't7' FOR UPDATE`);
      const rotation = (async () => {
        let total = 0;
        for (let n = await rotator.encryption.resealBatch(5); n > 0; n = await rotator.encryption.resealBatch(5)) total += n;
        return total;
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query(`UPDATE "${schema.schema}".threads SET "values" = $1::jsonb WHERE thread_id = 't7'`, [
        JSON.stringify(withA.cipher.sealJson({ n: "written meanwhile" }, "threads.values")),
      ]);
      await client.query("COMMIT");
      // Each thread's values once (t7's as written meanwhile); its `{}` interrupts and metadata say nothing to seal.
      expect(await rotation).toBe(20);
    } finally {
      client.release();
    }
    expect((await server.threads.get("t7"))?.values).toEqual({ n: "written meanwhile" });
    expect((await server.threads.get("t8"))?.values).toEqual({ n: 8 });
    expect(await sealedWith(server, A)).toEqual([]);
  });
});
