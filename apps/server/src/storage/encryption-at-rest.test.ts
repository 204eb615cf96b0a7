import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { killAll, runCli, startCli } from "../../test/support/cli-process.js";

/**
 * Encryption at rest (issue 42) as a user meets it: a marker sent through every path that stores what
 * users send — runs.wait, a resumable stream, an interrupt's resume value, the store, A2A SendMessage
 * with a push config, a cron, a webhook waiting in the outbox — then the server stopped and its data
 * searched byte by byte: the SQLite file and its WAL, every row of every PostgreSQL table. With a key
 * the marker is nowhere; without one the same search finds it. Then: the same key reads everything
 * back, another key is refused at start, and `keys rotate` leaves the data readable with the new key alone.
 */
const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-encryption.json", import.meta.url));
const KEY_1 = "k1-0123456789abcdef0123456789abc"; // 32 bytes: AES-256
const KEY_2 = "k2-0123456789abcdef0123456789abc";
const KEY_3 = "k3-0123456789abc"; // 16 bytes: AES-128
/** Nothing listens here: webhooks and pushes stay in the outbox with their payloads. */
const NOWHERE = "http://127.0.0.1:9/hook";

interface Driver {
  name: string;
  data(): Promise<{ args: string[]; scan(marker: string): Promise<string[]>; cleanup(): Promise<void> }>;
}

const DRIVERS: Driver[] = [
  {
    name: "SQLite",
    data: async () => {
      const dir = mkdtempSync(join(tmpdir(), "agent-server-sealed-"));
      return {
        args: ["--data-dir", dir],
        // The file and its WAL as bytes: wherever the marker's bytes are, this finds them.
        scan: async (marker) =>
          ["agent-server.sqlite", "agent-server.sqlite-wal"]
            .map((f) => join(dir, f))
            .filter((f) => existsSync(f) && readFileSync(f).includes(marker))
            .map((f) => f.split("/").at(-1)!),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL",
    data: async () => {
      const schema: TestSchema = await createTestSchema("sealed");
      return {
        args: ["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema],
        // Every row of every table as text; bytea shows as hex, so the marker is looked for in hex too.
        scan: async (marker) => {
          const client = new pg.Client({ connectionString: schema.url });
          await client.connect();
          try {
            const hex = Buffer.from(marker).toString("hex");
            const tables = await client.query<{ table_name: string }>(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
              [schema.schema],
            );
            const found: string[] = [];
            for (const { table_name } of tables.rows) {
              const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema.schema}"."${table_name}" t`);
              if (rows.rows.some((r) => r.row.includes(marker) || r.row.toLowerCase().includes(hex))) found.push(table_name);
            }
            return found;
          } finally {
            await client.end();
          }
        },
        cleanup: schema.drop,
      };
    },
  },
];

const serve = (args: string[], env: Record<string, string>) =>
  startCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--log-format", "json", ...args], { env });

/** The marker through every path that stores user content; answers what to read back later. */
async function sendEverywhere(url: string, marker: string): Promise<{ threadIds: string[]; taskId: string }> {
  const client = new Client({ apiUrl: url });
  const threads = await Promise.all([0, 1, 2].map(() => client.threads.create()));
  const [waited, streamed, interrupted] = threads.map((t) => t.thread_id) as [string, string, string];
  await client.runs.wait(waited, "echo", { input: { messages: [{ role: "user", content: `wait ${marker}` }] }, webhook: NOWHERE });
  for await (const chunk of client.runs.stream(streamed, "echo", {
    input: { messages: [{ role: "user", content: `stream ${marker}` }] },
    streamMode: ["values"],
    streamResumable: true,
  }))
    void chunk;
  await client.runs.wait(interrupted, "approval", { input: { request: "deploy" } });
  await client.runs.wait(interrupted, "approval", { command: { resume: `resume ${marker}` } });
  await client.store.putItem(["sealed"], "item", { text: `store ${marker}` });
  await client.crons.create("echo", { schedule: "0 0 1 1 *", input: { messages: [{ role: "user", content: `cron ${marker}` }] } });
  const sent = (await (
    await fetch(`${url}/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: `a2a ${marker}` }] },
          configuration: { taskPushNotificationConfig: { url: NOWHERE, token: `token-${marker}` } },
        },
      }),
    })
  ).json()) as { result: { task: { id: string } } };
  return { threadIds: [waited, streamed, interrupted], taskId: sent.result.task.id };
}

async function stop(server: Awaited<ReturnType<typeof serve>>): Promise<void> {
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}

afterAll(() => killAll());

for (const driver of DRIVERS) {
  describe(`encryption at rest on ${driver.name}`, () => {
    it("without a key the search finds the marker: it can see", async () => {
      const data = await driver.data();
      try {
        const marker = `MARK-${randomBytes(6).toString("hex")}`;
        const server = await serve(data.args, {});
        await sendEverywhere(server.url, marker);
        await stop(server);
        expect(await data.scan(marker)).not.toEqual([]);
      } finally {
        await data.cleanup();
      }
    }, 120_000);

    it("with LANGGRAPH_AES_KEY no byte of the marker is stored; the key reads it all back, another is refused, a rotation moves it to a new key", async () => {
      const data = await driver.data();
      try {
        const marker = `MARK-${randomBytes(6).toString("hex")}`;
        const first = await serve(data.args, { LANGGRAPH_AES_KEY: KEY_1 });
        const { threadIds, taskId } = await sendEverywhere(first.url, marker);
        await stop(first);
        expect(await data.scan(marker)).toEqual([]);

        const readsBack = async (env: Record<string, string>) => {
          const server = await serve(data.args, env);
          const client = new Client({ apiUrl: server.url });
          const [waited, streamed, interrupted] = await Promise.all(threadIds.map((id) => client.threads.getState(id)));
          expect(JSON.stringify(waited!.values)).toContain(`echo: wait ${marker}`);
          expect(JSON.stringify(streamed!.values)).toContain(`echo: stream ${marker}`);
          expect(interrupted!.values).toMatchObject({ decision: `resume ${marker}` });
          expect((await client.store.getItem(["sealed"], "item"))?.value).toEqual({ text: `store ${marker}` });
          expect(JSON.stringify(await client.crons.search({}))).toContain(`cron ${marker}`);
          const task = await (
            await fetch(`${server.url}/a2a/echo`, {
              method: "POST",
              headers: { "content-type": "application/json", "a2a-version": "1.0" },
              body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: taskId } }),
            })
          ).text();
          expect(task).toContain(`echo: a2a ${marker}`);
          await stop(server);
        };
        await readsBack({ LANGGRAPH_AES_KEY: KEY_1 });

        // Another key, or none, is refused at start with the key ids named.
        for (const env of [{ LANGGRAPH_AES_KEY: KEY_3 }, {}] as Record<string, string>[]) {
          const refused = runCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", ...data.args], { env });
          expect(await refused.exited).toBe(2);
          expect(refused.stdout() + refused.stderr()).toMatch(/sealed with key [0-9a-f]{16}/);
        }

        // Rotation: the new key seals, the old one opens; afterwards the new key alone reads everything.
        const rotate = runCli(["keys", "rotate", "--config", PROJECT, ...data.args], {
          env: { LANGGRAPH_AES_KEY: KEY_2, LANGGRAPH_AES_FALLBACK_KEYS: KEY_1 },
        });
        expect(await rotate.exited, rotate.stdout() + rotate.stderr()).toBe(0);
        expect(rotate.stdout()).toMatch(/Re-sealed \d+ values; every value is sealed with key [0-9a-f]{16}; forgot key [0-9a-f]{16}/);
        await readsBack({ LANGGRAPH_AES_KEY: KEY_2 });
        const old = runCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", ...data.args], {
          env: { LANGGRAPH_AES_KEY: KEY_1 },
        });
        expect(await old.exited).toBe(2);
        expect(await data.scan(marker)).toEqual([]);
      } finally {
        await data.cleanup();
      }
    }, 240_000);
  });
}

describe("a custom encryptor (langgraph.json encryption.path)", () => {
  it("seals with the hook for the request's user, with the model and field; reads back after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-encryptor-"));
    const log = join(dir, "encryptor.log");
    const config = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-encryptor.json", import.meta.url));
    const args = ["serve", "--config", config, "--host", "127.0.0.1", "--port", "0", "--data-dir", dir];
    try {
      const marker = `MARK-${randomBytes(6).toString("hex")}`;
      const first = await startCli(args, { env: { ENCRYPTOR_LOG: log } });
      const client = new Client({ apiUrl: first.url, defaultHeaders: { "x-api-key": "fixture-secret" } });
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: marker }] } });
      await client.store.putItem(["sealed"], "item", { text: marker });
      await stop(first);
      expect(
        ["agent-server.sqlite", "agent-server.sqlite-wal"].filter(
          (f) => existsSync(join(dir, f)) && readFileSync(join(dir, f)).includes(marker),
        ),
      ).toEqual([]);
      const calls = readFileSync(log, "utf8");
      // The request's and the run's writes are sealed for the authenticated user, named by model and field.
      expect(calls).toMatch(/^encrypt runs\.kwargs fixture-user$/m);
      expect(calls).toMatch(/^encrypt store_items\.value fixture-user$/m);
      expect(calls).toMatch(/^encrypt checkpoints\.\w+ fixture-user$/m);

      const again = await startCli(args, { env: { ENCRYPTOR_LOG: log } });
      const reader = new Client({ apiUrl: again.url, defaultHeaders: { "x-api-key": "fixture-secret" } });
      expect(JSON.stringify((await reader.threads.getState(thread.thread_id)).values)).toContain(`echo: ${marker}`);
      expect((await reader.store.getItem(["sealed"], "item"))?.value).toEqual({ text: marker });
      await stop(again);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
