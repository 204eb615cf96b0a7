import { openPostgresStorage } from "@agent-server/storage-postgres";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, jsonLines, killAll, startCli } from "../../test/support/cli-process.js";
import { exerciseApproval, exerciseExample } from "../../test/support/scenario.js";

let schema: TestSchema;
beforeEach(async () => {
  schema = await createTestSchema("cli_serve");
});
afterEach(async () => {
  await killAll();
  await schema.drop();
});

describe("agent-server serve on PostgreSQL", () => {
  it("serves the example project with production defaults and stops cleanly on SIGTERM", async () => {
    const server = await startCli([
      "serve",
      "--config",
      EXAMPLE_CONFIG,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--storage",
      "postgres",
      "--database-url",
      schema.url,
      "--database-schema",
      schema.schema,
      "--workers",
      "2",
    ]);

    // serve logs JSON lines by default, and names the database without its password.
    const startup = jsonLines(server.stdout());
    const storageLine = startup.find((l) => l.storage === "postgres" && "migrations" in l);
    expect(storageLine?.msg).toContain(`schema ${schema.schema}`);
    expect(storageLine?.msg).not.toContain(":postgres@");
    expect((storageLine?.migrations as string[]).length).toBeGreaterThan(0);
    expect(startup.find((l) => l.url)).toMatchObject({ mode: "serve", workers: 2, graphs: ["echo", "approval", "relay"] });

    const { client, threadId } = await exerciseExample(server.url);
    const approvalThread = await exerciseApproval(client);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);

    const storage = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
    try {
      expect((await storage.threads.get(threadId))?.status).toBe("idle");
      expect((await storage.threads.get(approvalThread))?.values).toMatchObject({ decision: "approved" });
      expect((await storage.runs.search({ thread_id: approvalThread })).map((r) => r.status)).toEqual(["success", "success"]);
    } finally {
      await storage.close();
    }
  });
});
