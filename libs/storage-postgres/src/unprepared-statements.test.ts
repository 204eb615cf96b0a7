import { randomUUID } from "node:crypto";
import pg from "pg";
import { createTestSchema, postgresUrl, type TestSchema } from "@agent-server/testing/postgres";
import { afterAll, expect, it } from "vitest";
import { openPostgresStorage, type PostgresStorage } from "./storage.js";

// A file of its own: `preparedStatements: false` holds for the whole process (vitest gives each file one).
let schema: TestSchema | undefined;
let storage: PostgresStorage | undefined;
afterAll(async () => {
  await storage?.close();
  await schema?.drop();
});

it("preparedStatements: false sends every statement unnamed (for PgBouncer in transaction mode)", async () => {
  schema = await createTestSchema();
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 4 });
  storage = await openPostgresStorage({ pool, schema: schema.schema, preparedStatements: false });
  const created = await storage.assistants.create({ assistant_id: randomUUID(), graph_id: "echo" });
  for (let i = 0; i < 3; i += 1) expect((await storage.assistants.get(created.assistant_id))?.graph_id).toBe("echo");
  await storage.checkpointer.getTuple({ configurable: { thread_id: "none", checkpoint_ns: "" } });
  const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
  try {
    for (const client of clients) expect((await client.query("SELECT statement FROM pg_prepared_statements")).rows).toEqual([]);
    expect(clients.length).toBeGreaterThan(0);
  } finally {
    for (const client of clients) client.release();
  }
  await storage.close();
  storage = undefined;
  await pool.end();
});
