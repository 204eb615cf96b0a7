import type { Storage } from "@agent-server/core";
import { describeStorageConformance } from "@agent-server/storage-conformance";
import { afterAll } from "vitest";
import type { PostgresStorage } from "./storage.js";
import { TestStorages } from "../test/storages.js";

// create: a new storage on a fresh schema; sibling: a second PostgresStorage (own pool) on the same
// schema, as another process; reopen: close, then a new PostgresStorage (own pool) on the same schema.
const storages = new TestStorages();
afterAll(() => storages.cleanup());

describeStorageConformance(
  "postgres",
  {
    create: () => storages.create(),
    sibling: (s: Storage) => storages.sibling(s as PostgresStorage),
    reopen: (s: Storage) => storages.reopen(s as PostgresStorage),
  },
  // The optional parts this driver has: every one (A2A task results, push configs, the thread lock, signals, TTL sweeps).
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
