import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, runCli } from "../../test/support/cli-process.js";

afterEach(killAll);

describe("agent-server migrate", () => {
  it("creates the SQLite schema, then finds nothing left to apply", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-migrate-"));
    try {
      const first = runCli(["migrate", "--data-dir", dir]);
      expect(await first.exited).toBe(0);
      const file = join(dir, "agent-server.sqlite");
      expect(first.stdout()).toContain(`Storage: sqlite (${file})`);
      expect(first.stdout()).toMatch(/Applied \d+ migration\(s\): 1_initial_schema/);
      expect(existsSync(file)).toBe(true);

      const second = runCli(["migrate", "--data-dir", dir]);
      expect(await second.exited).toBe(0);
      expect(second.stdout()).toContain("Schema is up to date: no migration applied.");

      const storage = await openSqliteStorage({ path: file });
      try {
        const tables = storage.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
        expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["assistants", "threads", "runs", "schema_migrations"]));
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("on PostgreSQL", () => {
    let schema: TestSchema | undefined;
    afterEach(async () => {
      await schema?.drop();
      schema = undefined;
    });

    it("creates the schema with the URL from POSTGRES_URL, then finds nothing left to apply", async () => {
      schema = await createTestSchema("cli_migrate");
      const env = { POSTGRES_URL: schema.url };
      const args = ["migrate", "--storage", "postgres", "--database-schema", schema.schema];
      const first = runCli(args, { env });
      expect(await first.exited, first.stderr()).toBe(0);
      expect(first.stdout()).toContain(`schema ${schema.schema})`);
      expect(first.stdout()).not.toContain(":postgres@"); // the password is redacted
      expect(first.stdout()).toMatch(/Applied \d+ migration\(s\)/);

      const second = runCli(args, { env });
      expect(await second.exited).toBe(0);
      expect(second.stdout()).toContain("Schema is up to date: no migration applied.");

      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
          [schema.schema],
        );
        expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(["assistants", "threads", "runs", "schema_migrations"]));
      } finally {
        await client.end();
      }
    });
  });

  it("memory storage has nothing to migrate and says so", async () => {
    const run = runCli(["migrate", "--storage", "memory"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain("nothing to migrate");
  });
});
