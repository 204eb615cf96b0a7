import { aesKey, fieldCipher, type Storage } from "@agent-server/core";
import { describeStorageConformance } from "@agent-server/storage-conformance";
import { afterAll } from "vitest";
import type { PostgresStorage } from "./storage.js";
import { TestStorages } from "../test/storages.js";

// The whole contract again with a key set: every value users send is sealed on its way in and opened on
// its way out, so the suite's own reads see what they wrote. Metadata keys the suite writes (thread
// `topic`, cron `team`, checkpoint `run_metadata`) are LANGGRAPH_AES_JSON_KEYS, sealed in place.
const cipher = fieldCipher(aesKey("conformance-key-0123456789abcdef", "test key"), [], ["topic", "team", "run_metadata"]);
const storages = new TestStorages(cipher);
afterAll(() => storages.cleanup());

describeStorageConformance(
  "postgres, sealed",
  {
    create: () => storages.create(),
    sibling: (s: Storage) => storages.sibling(s as PostgresStorage),
    reopen: (s: Storage) => storages.reopen(s as PostgresStorage),
  },
  {
    results: true,
    pushConfigs: true,
    threadLock: true,
    signals: "database",
    ttl: true,
    vectors: true,
    valuesAt: true,
    claimOnCreate: true,
    createWithThread: true,
  },
);
