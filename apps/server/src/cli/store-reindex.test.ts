import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { storeIndexIdentity } from "@agent-server/core";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FACTS } from "../../../../examples/semantic-search/src/facts.js";
import { jsonLines, killAll, runCli, startCli } from "../../test/support/cli-process.js";

const EXAMPLE = fileURLToPath(new URL("../../../../examples/semantic-search/src/", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-reindex-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** A project in `dir` whose store.index uses `embed` (a spec) with `dims`; the recall graph of the example. */
function project(name: string, index: Record<string, unknown>): string {
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ graphs: { recall: `${EXAMPLE}recall.ts:graph` }, store: { index } }));
  return config;
}

const dev = (config: string, ...extra: string[]) =>
  startCli(["dev", "--config", config, "--port", "0", "--no-reload", "--log-format", "json", "--data-dir", join(dir, "data"), ...extra]);

const searchRaw = (url: string, query: string) =>
  fetch(`${url}/store/items/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ namespace_prefix: ["facts"], query, limit: 3 }),
  });

describe("store.index identity and `agent-server store reindex` on a SQLite file", () => {
  it("a changed store.index refuses queries (409) until `store reindex` re-embeds every item in batches; a running server then ranks again", async () => {
    const v1 = project("v1", { embed: `${EXAMPLE}embed.ts:embed`, dims: 256, fields: ["text"] });
    let server = await dev(v1);
    const client = new Client({ apiUrl: server.url });
    for (const [i, text] of FACTS.entries()) await client.store.putItem(["facts"], `fact-${i}`, { text });
    for (let i = 0; i < 180; i++) await client.store.putItem(["filler"], `f-${i}`, { text: `filler number ${i}` });
    await client.store.putItem(["facts"], "hidden", { text: "Mercury planet Sun" }, { index: false });
    expect((await client.store.searchItems(["facts"], { query: "planet nearest the sun" })).items[0]?.key).toBe("fact-23");
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);

    // Other dims (another embedding): the recorded identity no longer matches.
    writeFileSync(
      join(dir, "embed128.ts"),
      `import { embedText } from ${JSON.stringify(`${EXAMPLE}embed.ts`)};\nexport const embed = async (texts: string[]) => texts.map((t) => embedText(t, 128));\n`,
    );
    const v2Index = { embed: "./embed128.ts:embed", dims: 128, fields: ["text"] };
    const v2 = project("v2", v2Index);
    server = await dev(v2);
    const warning = jsonLines(server.stdout()).find((l) => typeof l.msg === "string" && l.msg.startsWith("store.index changed"));
    expect(warning).toMatchObject({ level: 40, dims: 128 });
    expect(warning?.msg).toContain("agent-server store reindex");

    const refused = await searchRaw(server.url, "planet nearest the sun");
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/store\.index changed.*run `agent-server store reindex/);
    // Searches without a query are not affected.
    expect((await new Client({ apiUrl: server.url }).store.searchItems(["facts"], { limit: 1 })).items).toHaveLength(1);

    const reindex = runCli(["store", "reindex", "--config", v2, "--data-dir", join(dir, "data")]);
    expect(await reindex.exited).toBe(0);
    const lines = reindex.stdout().trim().split("\n");
    expect(lines.filter((l) => l.includes("items embedded"))).toEqual([
      "  100 items embedded (99 vectors)",
      "  200 items embedded (199 vectors)",
      "  231 items embedded (230 vectors)",
    ]);
    expect(lines.at(-1)).toBe(`Re-indexed 231 items (230 vectors); the store's index is now ${storeIndexIdentity(v2Index)}`);

    // The running server sees the recorded identity at its next query.
    const ranked = await searchRaw(server.url, "planet nearest the sun");
    expect(ranked.status).toBe(200);
    const { items } = (await ranked.json()) as { items: Array<{ key: string; score: number }> };
    expect(items[0]?.key).toBe("fact-23");
    expect(items.map((i) => i.key)).not.toContain("hidden"); // its put said index: false, and the re-index kept that
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);

    const storage = await openSqliteStorage({ path: join(dir, "data", "agent-server.sqlite") });
    try {
      expect(await storage.store.getIndexIdentity()).toBe(storeIndexIdentity(v2Index));
      const rows = storage.db.prepare("SELECT count(*) AS n, max(length(embedding)) AS bytes FROM store_vectors").get();
      expect(rows).toEqual({ n: 230, bytes: 128 * 4 });
    } finally {
      await storage.close();
    }
  });

  it("an embedding of the wrong size answers 502 naming dims and stores nothing; a missing provider package stops the start", async () => {
    writeFileSync(join(dir, "bad.ts"), "export const embed = async (texts: string[]) => texts.map(() => [1, 2, 3]);\n");
    const server = await dev(project("bad", { embed: "./bad.ts:embed", dims: 256 }));
    const put = await fetch(`${server.url}/store/items`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ namespace: ["n"], key: "k", value: { text: "t" } }),
    });
    expect(put.status).toBe(502);
    expect(((await put.json()) as { detail: string }).detail).toContain("has 3 dimensions; store.index.dims is 256");
    expect(await new Client({ apiUrl: server.url }).store.getItem(["n"], "k")).toBeNull();
    const query = await searchRaw(server.url, "anything");
    expect(query.status).toBe(502);

    const start = runCli([
      "dev",
      "--config",
      project("openai", { embed: "openai:text-embedding-3-small", dims: 1536 }),
      "--storage",
      "memory",
      "--port",
      "0",
      "--no-reload",
    ]);
    expect(await start.exited).toBe(2);
    expect(start.stdout() + start.stderr()).toContain(
      'store.index.embed "openai:text-embedding-3-small" needs the package @langchain/openai, which is not installed',
    );
  });
});
