/**
 * Semantic store search (langgraph.json `store.index`): p50/p95 of `StoreRepo.search` with a query over
 * `--items` items of 256-dimension vectors (the semantic-search example's hashed bag-of-words embedding of
 * 8-word sentences), top 10, all under one namespace prefix, per driver and scoring method:
 * SQLite with sqlite-vec, SQLite with the JavaScript exact scan, PostgreSQL's exact scan in SQL, memory.
 * Every method is an exact scan of the prefix's vectors (O(items × dims)); this measures how fast each
 * computes it. Also: the time to put the items (one embedding + item + vectors per put).
 *
 *   npx tsx tools/bench/investigations/store-search.ts [--items 10000] [--queries 50]
 *
 * Uses POSTGRES_URL, else starts an embedded server. Prints one line per measurement.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { unitVector, type Storage } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { embedText, DIMS } from "../../../examples/semantic-search/src/embed.js";
import { openBenchPostgres } from "../src/postgres.js";
import { cleanUp } from "../src/processes.js";

const { values: args } = parseArgs({
  options: { items: { type: "string", default: "10000" }, queries: { type: "string", default: "50" } },
});
const itemCount = Number(args.items);
const queryCount = Number(args.queries);

/** A deterministic generator (mulberry32), so every driver gets the same items and queries. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(42);
const vocabulary = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x${Math.floor(rand() * 1e6).toString(36)}`);
const sentence = () => Array.from({ length: 8 }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(" ");
const texts = Array.from({ length: itemCount }, sentence);
const queries = Array.from({ length: queryCount }, () => unitVector(embedText(sentence().split(" ").slice(0, 3).join(" ")), DIMS, "query"));

function stats(samples: number[]): { p50: string; p95: string } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  return { p50: at(0.5), p95: at(0.95) };
}

async function measure(name: string, storage: Storage): Promise<void> {
  try {
    const started = performance.now();
    for (const [i, text] of texts.entries()) {
      const vector = unitVector(embedText(text), DIMS, "item");
      await storage.store.put(["bench", `p${i % 10}`], `k${i}`, { text, i }, { vectors: [{ field: "text", vector }] });
    }
    const putMs = (performance.now() - started) / itemCount;
    for (const query of queries.slice(0, 3)) await storage.store.search(["bench"], { query, limit: 10 }); // warm-up
    const samples: number[] = [];
    for (const query of queries) {
      const t0 = performance.now();
      const found = await storage.store.search(["bench"], { query, limit: 10 });
      samples.push(performance.now() - t0);
      if (found.length !== 10) throw new Error(`${name}: ${found.length} results`);
    }
    const plain: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await storage.store.search(["bench"], { limit: 10 });
      plain.push(performance.now() - t0);
    }
    const s = stats(samples);
    console.log(
      `${name}: search with a query over ${itemCount} items × ${DIMS} dims, top 10: p50=${s.p50} ms p95=${s.p95} ms; ` +
        `without a query p50=${stats(plain).p50} ms; put ${putMs.toFixed(3)} ms/item [${storage.store.vectorSearch}]`,
    );
  } finally {
    await storage.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "bench-store-search-"));
try {
  await measure("memory", createMemoryStorage());
  await measure("sqlite + sqlite-vec", await openSqliteStorage({ path: join(dir, "vec.sqlite") }));
  await measure("sqlite, exact scan (JavaScript)", await openSqliteStorage({ path: join(dir, "exact.sqlite"), vectorSearch: "exact" }));
  const pg = await openBenchPostgres();
  await measure("postgres, exact scan (SQL)", await openPostgresStorage({ connectionString: pg.url, schema: pg.newSchema("bench_vec") }));
} finally {
  rmSync(dir, { recursive: true, force: true });
  await cleanUp();
}
