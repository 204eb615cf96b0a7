import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@agent-server/core";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, runCli } from "../../test/support/cli-process.js";
import { expectSameStore, populate } from "../../test/support/snapshot-scenario.js";

const schemas: TestSchema[] = [];
const storages: Storage[] = [];
afterEach(async () => {
  await killAll();
  for (const storage of storages.splice(0)) await storage.close().catch(() => undefined);
  for (const schema of schemas.splice(0)) await schema.drop();
});

async function postgres(name: string): Promise<{ schema: TestSchema; storage: Storage }> {
  const schema = await createTestSchema(name);
  schemas.push(schema);
  const storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
  storages.push(storage);
  return { schema, storage };
}

describe("snapshot on PostgreSQL", () => {
  it("round-trips a store through the CLI: export from one schema, import into another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-snapshot-pg-"));
    try {
      const source = await postgres("snap_src");
      const scenario = await populate(source.storage);
      const target = await postgres("snap_dst");
      const file = join(dir, "pg.jsonl");

      const env = { POSTGRES_URL: source.schema.url };
      const exported = runCli(["snapshot", "export", "--storage", "postgres", "--database-schema", source.schema.schema, "--out", file], {
        env,
      });
      expect(await exported.exited, exported.stderr()).toBe(0);
      const imported = runCli([
        "snapshot",
        "import",
        "--storage",
        "postgres",
        "--database-url",
        target.schema.url,
        "--database-schema",
        target.schema.schema,
        "--in",
        file,
      ]);
      expect(await imported.exited, imported.stderr()).toBe(0);
      expect(imported.stdout()).toMatch(/checkpoint\s+\d+ imported, 0 skipped/);
      expect(imported.stdout()).toMatch(/result\s+2 imported, 0 skipped/);

      await expectSameStore(source.storage, target.storage, scenario);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
