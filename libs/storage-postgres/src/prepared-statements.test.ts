import { randomUUID } from "node:crypto";
import pg from "pg";
import { createTestSchema, postgresUrl, type TestSchema } from "@agent-server/testing/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { query, StatementNames, statementNames } from "./db.js";
import { openPostgresStorage, type PostgresStorage } from "./storage.js";

const schemas: TestSchema[] = [];
const storages: PostgresStorage[] = [];
afterAll(async () => {
  await Promise.allSettled(storages.map((s) => s.close()));
  await Promise.allSettled(schemas.map((s) => s.drop()));
});

/** The prepared statements of every connection idle in `pool` (their texts), read on each connection. */
async function preparedOnIdleConnections(pool: pg.Pool): Promise<string[]> {
  const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
  try {
    const texts = await Promise.all(clients.map(async (c) => (await c.query("SELECT statement FROM pg_prepared_statements")).rows));
    return texts.flat().map((r: { statement: string }) => r.statement);
  } finally {
    for (const c of clients) c.release();
  }
}

describe("named statements (PostgreSQL parses and plans each once per connection)", () => {
  it("a statement sent through the driver is prepared on its connection under its name, and the name is kept for its text", async () => {
    const pool = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
    const client = await pool.connect();
    try {
      const text = "SELECT $1::int + 1 AS next";
      expect(await query(client, text, [1])).toEqual([{ next: 2 }]);
      expect(await query(client, text, [41])).toEqual([{ next: 42 }]);
      const { rows } = await client.query("SELECT name, statement FROM pg_prepared_statements");
      expect(rows).toEqual([{ name: statementNames.nameOf(text), statement: text }]);
    } finally {
      client.release();
      await pool.end();
    }
  });

  it("a repository's statements are prepared on the pool's connections", async () => {
    const schema = await createTestSchema();
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: postgresUrl(), max: 4 });
    const storage = await openPostgresStorage({ pool, schema: schema.schema });
    storages.push(storage);
    const created = await storage.assistants.create({ assistant_id: randomUUID(), graph_id: "echo" });
    for (let i = 0; i < 3; i += 1) expect((await storage.assistants.get(created.assistant_id))?.graph_id).toBe("echo");
    const prepared = await preparedOnIdleConnections(pool);
    expect(prepared.some((text) => text.includes(`${storage.schema}".assistants WHERE assistant_id = $1`))).toBe(true);
    await storage.close();
    await pool.end();
  });

  it("names the first `limit` distinct texts only, and none once disabled", () => {
    const names = new StatementNames(2);
    const first = names.nameOf("SELECT 1");
    const second = names.nameOf("SELECT 2");
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(names.nameOf("SELECT 1")).toBe(first);
    expect(names.nameOf("SELECT 3")).toBeUndefined();
    expect(names.size).toBe(2);
    names.disable();
    expect(names.nameOf("SELECT 1")).toBeUndefined();
  });
});
