import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aesKey, fieldCipher, type FieldCipher, type Storage } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { createTestSchema } from "./postgres/index.js";

/**
 * A storage backend the engine's tests (and those of the layers above it) run on. `reopen` closes the
 * driver and opens a new one over the same data (a process restart); the memory driver has no such thing.
 * `connect` opens one more driver over the same data beside the first, as another server process would
 * (memory: an instance over the same state); `dispose` closes it too.
 */
export interface TestDriver {
  name: string;
  open(): Promise<{ storage: Storage; reopen?: () => Promise<Storage>; connect(): Promise<Storage>; dispose(): Promise<void> }>;
}

/** Drivers opened by `connect`, closed by `dispose`. */
function connections(): { add(storage: Storage): Storage; closeAll(): Promise<void> } {
  const opened: Storage[] = [];
  return {
    add(storage) {
      opened.push(storage);
      return storage;
    },
    async closeAll() {
      await Promise.all(opened.map((storage) => storage.close().catch(() => undefined)));
    },
  };
}

function sqliteDriver(name: string, cipher?: FieldCipher): TestDriver {
  return {
    name,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "engine-sqlite-"));
      const path = join(dir, "agent-server.sqlite");
      let current: Storage = await openSqliteStorage({ path, cipher });
      const others = connections();
      return {
        storage: current,
        connect: async () => others.add(await openSqliteStorage({ path, cipher })),
        async reopen() {
          await current.close();
          current = await openSqliteStorage({ path, cipher });
          return current;
        },
        async dispose() {
          await others.closeAll();
          await current.close().catch(() => undefined);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

function postgresDriver(name: string, cipher?: FieldCipher): TestDriver {
  return {
    name,
    async open() {
      const { url, schema, drop } = await createTestSchema("engine");
      const options = { connectionString: url, schema, cipher };
      let current: Storage = await openPostgresStorage(options);
      const others = connections();
      return {
        storage: current,
        connect: async () => others.add(await openPostgresStorage(options)),
        async reopen() {
          await current.close();
          current = await openPostgresStorage(options);
          return current;
        },
        async dispose() {
          await others.closeAll();
          await current.close().catch(() => undefined);
          await drop();
        },
      };
    },
  };
}

export const drivers: TestDriver[] = [
  {
    name: "memory",
    async open() {
      const storage = createMemoryStorage();
      const others = connections();
      return {
        storage,
        connect: async () => others.add(createMemoryStorage(storage.state)),
        async dispose() {
          await others.closeAll();
          await storage.close();
        },
      };
    },
  },
  sqliteDriver("sqlite"),
  postgresDriver("postgres"),
];

/**
 * SQLite and PostgreSQL with LANGGRAPH_AES_KEY's cipher: for the suites that must hold with encryption at rest
 * (the durable A2A results gate). Memory keeps nothing at rest, so it has no sealed variant.
 */
export const sealedDrivers: TestDriver[] = [
  sqliteDriver("sqlite, sealed", fieldCipher(aesKey("testing-key-0123456789abcdef0123", "LANGGRAPH_AES_KEY"))),
  postgresDriver("postgres, sealed", fieldCipher(aesKey("testing-key-0123456789abcdef0123", "LANGGRAPH_AES_KEY"))),
];
