/**
 * The PostgreSQL driver with its signals kept within the process (`reach: "process"`), as a driver
 * without LISTEN/NOTIFY would be: no NOTIFY per stream event, run end or admission, and every
 * cross-process hand-over left to the fallback poll. For `scale-out.ts`, to price the signals; not a
 * way to deploy. Opened by `serve --storage ./tools/bench/investigations/drivers/postgres-process-signals.ts:open`
 * with BENCH_DATABASE_URL and BENCH_DATABASE_SCHEMA in the environment.
 */
import { LocalSignalBus, type Storage } from "@agent-server/core";
import { openPostgresStorage } from "@agent-server/storage-postgres";

export async function open(): Promise<Storage> {
  const storage = await openPostgresStorage({
    connectionString: process.env.BENCH_DATABASE_URL!,
    schema: process.env.BENCH_DATABASE_SCHEMA!,
  });
  // The driver as it is (thread lock, presence, repos), seen through an object whose own `signals` is
  // a bus of this process; `close` still closes the real driver (its LISTEN connection is never opened).
  return Object.create(storage, {
    signals: { value: new LocalSignalBus("process") },
    close: { value: () => storage.close() },
  }) as Storage;
}
