import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@agent-server/core";
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
  {
    name: "sqlite",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "engine-sqlite-"));
      const path = join(dir, "agent-server.sqlite");
      let current: Storage = await openSqliteStorage({ path });
      const others = connections();
      return {
        storage: current,
        connect: async () => others.add(await openSqliteStorage({ path })),
        async reopen() {
          await current.close();
          current = await openSqliteStorage({ path });
          return current;
        },
        async dispose() {
          await others.closeAll();
          await current.close().catch(() => undefined);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "postgres",
    async open() {
      const { url, schema, drop } = await createTestSchema("engine");
      let current: Storage = await openPostgresStorage({ connectionString: url, schema });
      const others = connections();
      return {
        storage: current,
        connect: async () => others.add(await openPostgresStorage({ connectionString: url, schema })),
        async reopen() {
          await current.close();
          current = await openPostgresStorage({ connectionString: url, schema });
          return current;
        },
        async dispose() {
          await others.closeAll();
          await current.close().catch(() => undefined);
          await drop();
        },
      };
    },
  },
];
