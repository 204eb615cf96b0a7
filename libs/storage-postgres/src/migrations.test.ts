import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestSchema, postgresUrl, type TestSchema } from "@agent-server/testing/postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { readMigrations, renderMigrationsModule } from "./migrations-compiler.js";
import { MIGRATIONS } from "./migrations.generated.js";
import { openPostgresStorage } from "./storage.js";

const root = join(import.meta.dirname, "..");
const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.allSettled(schemas.map((s) => s.drop()));
});

async function freshSchema(): Promise<TestSchema> {
  const schema = await createTestSchema("mig");
  schemas.push(schema);
  return schema;
}

async function rows<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("migrations asset", () => {
  it("src/migrations.generated.ts is up to date with migrations/*.sql (run `npx nx run storage-postgres:generate-migrations`)", () => {
    const expected = renderMigrationsModule(readMigrations(join(root, "migrations")));
    const committed = readFileSync(join(root, "src", "migrations.generated.ts"), "utf8");
    expect(committed, "stale migrations asset: run `npx nx run storage-postgres:generate-migrations`").toBe(expected);
  });

  it("numbers migrations in order without gaps", () => {
    expect(MIGRATIONS.map((m) => Number(m.version))).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});

describe("migrations on a real server", () => {
  it("two processes opening a fresh schema at once both succeed and each migration is recorded once", async () => {
    const { url, schema } = await freshSchema();
    const opened = await Promise.all([
      openPostgresStorage({ connectionString: url, schema }),
      openPostgresStorage({ connectionString: url, schema }),
      openPostgresStorage({ connectionString: url, schema }),
    ]);
    try {
      const recorded = await rows<{ version: string; n: string }>(
        `SELECT version, count(*) AS n FROM "${schema}".schema_migrations GROUP BY version ORDER BY version`,
      );
      expect(recorded).toEqual(MIGRATIONS.map((m) => ({ version: m.version, n: "1" })));
      const saver = await rows<{ v: number; n: string }>(`SELECT v, count(*) AS n FROM "${schema}".checkpoint_migrations GROUP BY v`);
      expect(saver.length).toBeGreaterThan(0);
      expect(saver.every((r) => r.n === "1")).toBe(true);
      // Everything works on every instance.
      await opened[0]!.threads.create({ thread_id: "t1" });
      expect(await opened[2]!.threads.get("t1")).not.toBeNull();
    } finally {
      await Promise.all(opened.map((s) => s.close()));
    }
  });

  it("is idempotent on reopen: nothing is applied twice and data survives", async () => {
    const { url, schema } = await freshSchema();
    const first = await openPostgresStorage({ connectionString: url, schema });
    await first.threads.create({ thread_id: "keep", metadata: { a: 1 } });
    await first.close();
    const second = await openPostgresStorage({ connectionString: url, schema });
    try {
      expect(await second.migrate()).toEqual([]);
      expect((await second.threads.get("keep"))?.metadata).toEqual({ a: 1 });
      const recorded = await rows<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".schema_migrations`);
      expect(Number(recorded[0]!.n)).toBe(MIGRATIONS.length);
    } finally {
      await second.close();
    }
  });

  it("keeps every table in the given schema", async () => {
    const { url, schema } = await freshSchema();
    const storage = await openPostgresStorage({ connectionString: url, schema });
    await storage.close();
    const tables = await rows<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["assistants", "threads", "runs", "run_results", "checkpoints", "checkpoint_writes", "schema_migrations"]),
    );
  });

  it("refuses a schema name it cannot quote safely", async () => {
    await expect(openPostgresStorage({ connectionString: postgresUrl(), schema: 'bad"name' })).rejects.toThrow(/schema/);
  });
});
