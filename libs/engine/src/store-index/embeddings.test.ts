import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { isFileSpec, loadEmbedder } from "./embeddings.js";
import { reindexStore } from "./reindex.js";
import { StoreIndex } from "./store-index.js";

const dir = mkdtempSync(join(tmpdir(), "store-index-embed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, source: string): string {
  writeFileSync(join(dir, name), source);
  return `./${name}`;
}

describe("store.index embed specs", () => {
  it("tells files from provider:model", () => {
    expect(isFileSpec("./e.ts:embed")).toBe(true);
    expect(isFileSpec("/abs/e.js:embed")).toBe(true);
    expect(isFileSpec("e.mts")).toBe(true);
    expect(isFileSpec("openai:text-embedding-3-small")).toBe(false);
  });

  it("loads a function export (a query is embedded as one text) and an Embeddings object export", async () => {
    const fn = await loadEmbedder(
      `${file("fn.ts", "export const embed = async (texts: string[]) => texts.map((t) => [t.length, 1]);")}:embed`,
      dir,
    );
    expect(await fn.embedDocuments(["ab", "abc"])).toEqual([
      [2, 1],
      [3, 1],
    ]);
    expect(await fn.embedQuery("abcd")).toEqual([4, 1]);
    const object = await loadEmbedder(
      file("obj.mjs", "export default { embedDocuments: async (t) => t.map(() => [0, 1]), embedQuery: async () => [1, 0] };"),
      dir,
    );
    expect(await object.embedQuery("x")).toEqual([1, 0]);
  });

  it("names what is wrong: a missing export, a class, a file that does not import, an unknown provider", async () => {
    await expect(loadEmbedder(`${file("none.ts", "export const other = 1;")}:embed`, dir)).rejects.toThrow(
      /exports nothing as "embed"; expected a function .* or an Embeddings object/,
    );
    await expect(loadEmbedder(`${file("cls.ts", "export class Embed {}")}:Embed`, dir)).rejects.toThrow(/exports a class as "Embed"/);
    await expect(loadEmbedder("./missing.ts:embed", dir)).rejects.toThrow(/cannot import .*missing\.ts/);
    await expect(loadEmbedder("acme:model-1", dir)).rejects.toThrow(/provider one of openai, azure_openai/);
  });
});

describe("StoreIndex", () => {
  const settings = { embed: "./fn.ts:embed", dims: 2, fields: ["text"] };
  // A deterministic embedder written for the test (no model runs here): "x" texts point one way, others the other.
  const embedder = {
    calls: 0,
    async embedDocuments(texts: string[]) {
      this.calls++;
      return texts.map((t) => (t.includes("x") ? [1, 0] : [0, 3]));
    },
    async embedQuery(text: string) {
      return text.includes("x") ? [2, 0] : [0, 1];
    },
  };

  it("embeds a put's fields in one call as unit vectors; index false or no text: none", async () => {
    const index = new StoreIndex(settings, embedder);
    const before = embedder.calls;
    expect(await index.vectorsFor({ text: "y", title: "x" }, ["text", "title"])).toEqual([
      { field: "text", vector: [0, 1] },
      { field: "title", vector: [1, 0] },
    ]);
    expect(embedder.calls).toBe(before + 1);
    expect(await index.vectorsFor({ text: "x" }, false)).toEqual([]);
    expect(await index.vectorsFor({ other: "x" })).toEqual([]);
    expect(await index.queryVector("x")).toEqual([1, 0]);
  });

  it("a stale identity refuses queries until a re-index records it; the re-index keeps each put's index choice", async () => {
    const storage = createMemoryStorage();
    await storage.store.put(["n"], "a", { text: "x" });
    await storage.store.put(["n"], "b", { text: "y" }, { index: false });
    const index = new StoreIndex(settings, embedder);
    expect(await index.checkIdentity(storage.store)).toBe("stale"); // items stored before any identity
    await expect(index.queryVector("x")).rejects.toThrow(/store\.index changed.*agent-server store reindex/);
    expect(await reindexStore(storage.store, index, { batchSize: 1 })).toEqual({ items: 2, vectors: 1 });
    expect(await storage.store.getIndexIdentity()).toBe(index.identity);
    const found = await storage.store.search(["n"], { query: await index.queryVector("x") });
    expect(found.map((i) => [i.key, i.score])).toEqual([["a", 1]]);
    expect(await new StoreIndex({ ...settings, fields: ["$"] }, embedder).checkIdentity(storage.store)).toBe("stale");
    expect(await new StoreIndex(settings, embedder).checkIdentity(storage.store)).toBe("same");
    await storage.close();
  });
});
