import { afterAll } from "vitest";
import type { Storage } from "@agent-server/core";
import { describeStorageConformance } from "@agent-server/storage-conformance";
import { openSqliteStorage, SqliteStorage } from "./storage.js";
import { tempDir } from "./test/helpers.js";

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
  // The optional parts this driver has: every one (A2A task results, push configs, the thread lock, TTL sweeps; signals in-process).
  { results: true, pushConfigs: true, threadLock: true, signals: "process", ttl: true },
);
