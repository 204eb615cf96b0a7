import { afterAll } from "vitest";
import { aesKey, fieldCipher, type Storage } from "@agent-server/core";
import { describeStorageConformance, describeVectorSearchConformance } from "@agent-server/storage-conformance";
import { openSqliteStorage, SqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir("agent-sqlite-conformance-");
afterAll(() => tmp.cleanup());

function pathOf(storage: Storage): string {
  if (!(storage instanceof SqliteStorage)) throw new Error("not a SqliteStorage");
  return storage.path;
}

describeStorageConformance(
  "sqlite",
  {
    /** A new database file in the temp directory. */
    create: () => openSqliteStorage({ path: tmp.file() }),
    /** A second connection to the same file. */
    sibling: (storage) => openSqliteStorage({ path: pathOf(storage) }),
    /** Close, then open the same file again. */
    reopen: async (storage) => {
      const path = pathOf(storage);
      await storage.close();
      return openSqliteStorage({ path });
    },
  },
  // The optional parts this driver has: every one (A2A task results, push configs, the thread lock, TTL sweeps,
  // vector search through sqlite-vec, runs claimed on create, a run created with its new thread; signals in-process).
  {
    results: true,
    pushConfigs: true,
    threadLock: true,
    signals: "process",
    ttl: true,
    vectors: true,
    valuesAt: true,
    claimOnCreate: true,
    createWithThread: true,
  },
);

// The same vector checks with the JavaScript exact scan instead of sqlite-vec.
describeVectorSearchConformance("sqlite, exact scan", {
  create: async () => {
    const storage = await openSqliteStorage({ path: tmp.file(), vectorSearch: "exact" });
    if (storage.store.vectorSearch !== "exact scan (JavaScript)") throw new Error(`not the exact scan: ${storage.store.vectorSearch}`);
    return storage;
  },
  reopen: async (storage) => {
    const path = pathOf(storage);
    await storage.close();
    return openSqliteStorage({ path, vectorSearch: "exact" });
  },
});

/**
 * The whole suite again with encryption at rest on: every value users send sealed (a key, and metadata keys
 * the suite's searches and auth filters use sealed too), so each contract holds over sealed columns.
 */
const cipher = fieldCipher(aesKey("conformance-key-0123456789abcdef", "LANGGRAPH_AES_KEY"), [], ["tag", "team"]);
describeStorageConformance(
  "sqlite, sealed",
  {
    create: () => openSqliteStorage({ path: tmp.file(), cipher }),
    sibling: (storage) => openSqliteStorage({ path: pathOf(storage), cipher }),
    reopen: async (storage) => {
      const path = pathOf(storage);
      await storage.close();
      return openSqliteStorage({ path, cipher });
    },
  },
  {
    results: true,
    pushConfigs: true,
    threadLock: true,
    signals: "process",
    ttl: true,
    vectors: true,
    valuesAt: true,
    claimOnCreate: true,
    createWithThread: true,
  },
);
