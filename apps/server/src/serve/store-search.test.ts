import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FACTS } from "../../../../examples/semantic-search/src/facts.js";
import { jsonLines, killAll, startCli } from "../../test/support/cli-process.js";

/** The semantic search example: store.index with a local hashed bag-of-words embedding of each item's `text`. */
const CONFIG = fileURLToPath(new URL("../../../../examples/semantic-search/langgraph.json", import.meta.url));

let dataDir: string;
let schema: TestSchema;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "agent-server-store-search-"));
  schema = await createTestSchema("store_search");
});
afterEach(() => killAll());
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
});

const drivers = [
  { name: "memory", args: () => ["--storage", "memory"], search: "exact scan (JavaScript)" },
  { name: "sqlite", args: () => ["--data-dir", dataDir], search: "sqlite-vec (vec_distance_cosine, exact)" },
  {
    name: "postgres",
    args: () => ["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema],
    search: "exact scan (SQL over real[])",
  },
];

describe.each(drivers)("semantic store search through the SDK on $name", (driver) => {
  it("ranks 50 facts by a query (filter, limit and index:false applied), and a graph's store.search ranks the same", async () => {
    const server = await startCli(["dev", "--config", CONFIG, "--port", "0", "--no-reload", "--log-format", "json", ...driver.args()]);
    const startup = jsonLines(server.stdout()).find((l) => typeof l.msg === "string" && l.msg.startsWith("Store index:"));
    expect(startup).toMatchObject({ embed: "./src/embed.ts:embed", dims: 256, index_fields: ["text"], vector_search: driver.search });

    const client = new Client({ apiUrl: server.url });
    for (const [i, text] of FACTS.entries()) await client.store.putItem(["facts"], `fact-${i}`, { text, n: i });

    const { items } = await client.store.searchItems(["facts"], { query: "Which planet is nearest the sun?" });
    expect(items).toHaveLength(10);
    expect(items[0]).toMatchObject({ key: "fact-23", value: { text: "Mercury is the planet closest to the Sun" } });
    const scores = items.map((i) => i.score!);
    expect(scores[0]).toBeCloseTo(0.577, 2);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    // The filter applies before ranking (among facts under 40, Paris is the one about France); offset and
    // limit page the ranking.
    const early = await client.store.searchItems(["facts"], { query: "a gift from France", filter: { n: { $lt: 40 } }, limit: 2 });
    expect(early.items.map((i) => i.value.text)).toEqual(["Paris is the capital of France", expect.any(String)]);
    const ranked = await client.store.searchItems(["facts"], { query: "a gift from France", limit: 2 });
    expect(ranked.items.map((i) => i.key)).toEqual(["fact-45", "fact-0"]);
    const second = await client.store.searchItems(["facts"], { query: "a gift from France", limit: 1, offset: 1 });
    expect(second.items.map((i) => i.key)).toEqual(["fact-0"]);

    // index: false keeps an item out of query results, not out of plain searches.
    await client.store.putItem(["facts"], "unindexed", { text: "Paris is the capital of France" }, { index: false });
    const withUnindexed = await client.store.searchItems(["facts"], { query: "capital of France", limit: 50 });
    expect(withUnindexed.items[0]?.key).toBe("fact-0");
    expect(withUnindexed.items.map((i) => i.key)).not.toContain("unindexed");
    const plain = await client.store.searchItems(["facts"], { limit: 1 });
    expect(plain.items.map((i) => [i.key, i.score])).toEqual([["unindexed", undefined]]);

    // A put's own index paths: this one is found by its `title`, not its `text`.
    await client.store.putItem(["facts"], "titled", { title: "deep sea vent", text: "x" }, { index: ["title"] });
    expect((await client.store.searchItems(["facts"], { query: "deep sea vent", limit: 1 })).items[0]?.key).toBe("titled");

    // A graph node's store.search ranks with the same index.
    const state = (await client.runs.wait(null, "recall", { input: { query: "the highest mountain" } })) as {
      found: Array<{ key: string; text: string; score: number }>;
    };
    expect(state.found[0]).toMatchObject({ key: "fact-1", text: "Mount Everest is the highest mountain on Earth" });
    expect(state.found[0]!.score).toBeGreaterThan(state.found[1]!.score);

    // Bad input answers 422 with a JSON body.
    const post = (path: string, method: string, body: unknown) =>
      fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const badQuery = await post("/store/items/search", "POST", { namespace_prefix: ["facts"], query: 42 });
    expect(badQuery.status).toBe(422);
    expect(JSON.stringify(await badQuery.json())).toContain("query must be a string");
    const badIndex = await post("/store/items", "PUT", { namespace: ["facts"], key: "k", value: { text: "t" }, index: "text" });
    expect(badIndex.status).toBe(422);
    expect(JSON.stringify(await badIndex.json())).toContain("index must be false or an array of JSON paths");
  });
});
