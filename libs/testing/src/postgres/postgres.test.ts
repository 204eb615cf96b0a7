import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { cleanStaleServers, createTestDatabase } from "./index.js";

describe("testing helpers", () => {
  it("createTestDatabase gives an isolated database; the default schema is public", async () => {
    const db = await createTestDatabase("db");
    try {
      const storage = await openPostgresStorage({ connectionString: db.url });
      try {
        expect(storage.schema).toBe("public");
        await storage.threads.create({ thread_id: "only-here" });
      } finally {
        await storage.close();
      }
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT thread_id FROM public.threads`);
        expect(rows).toEqual([{ thread_id: "only-here" }]);
      } finally {
        await client.end();
      }
    } finally {
      await db.drop();
    }
  });

  it("cleanStaleServers removes directories whose owner process is gone, and keeps live ones", async () => {
    const stale = mkdtempSync(join(tmpdir(), "agent-server-pg-"));
    mkdirSync(join(stale, "data"));
    writeFileSync(join(stale, "owner.pid"), "2147483646"); // no such process
    writeFileSync(join(stale, "data", "postmaster.pid"), "2147483645\n"); // nor server
    const live = mkdtempSync(join(tmpdir(), "agent-server-pg-"));
    writeFileSync(join(live, "owner.pid"), String(process.pid));
    await cleanStaleServers();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    writeFileSync(join(live, "owner.pid"), "2147483646");
    await cleanStaleServers();
    expect(existsSync(live)).toBe(false);
  });
});
