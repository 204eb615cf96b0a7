import { Client } from "@langchain/langgraph-sdk";
import type { Storage } from "@agent-server/core";
import { startCli, type CliRun } from "./cli-process.js";

/** One `agent-server serve` process, as one replica behind a load balancer, with an SDK client for it. */
export type ServeProcess = CliRun & { url: string; client: Client };

export interface ServeProcessesOptions {
  /** The project's langgraph.json. */
  config: string;
  /** PostgreSQL connection string and schema every process shares. */
  databaseUrl: string;
  databaseSchema: string;
  count: number;
  workers: number;
  /**
   * A driver module (`--storage ./driver.ts:export`) to open instead of the PostgreSQL driver; it reads
   * its connection from `env` (`--database-url` is for `--storage postgres` only).
   */
  storageModule?: string;
  /** More `serve` flags (e.g. `--poll-interval`). */
  extraArgs?: string[];
  /** The CLI's environment additions (see `runCli`: POSTGRES_URL is dropped unless given here). */
  env?: Record<string, string>;
}

/**
 * Starts `count` serve processes on loopback ports over one PostgreSQL schema: one first, so the schema
 * is migrated once (as `agent-server migrate` would in a deployment), then the others together. Stop
 * them with `killAll` (cli-process.ts).
 */
export async function startServeProcesses(options: ServeProcessesOptions): Promise<ServeProcess[]> {
  const start = async (): Promise<ServeProcess> => {
    const run = await startCli(
      [
        ...["serve", "--config", options.config, "--host", "127.0.0.1", "--port", "0", "--workers", String(options.workers)],
        ...(options.storageModule !== undefined
          ? ["--storage", options.storageModule]
          : ["--storage", "postgres", "--database-url", options.databaseUrl, "--database-schema", options.databaseSchema]),
        ...(options.extraArgs ?? []),
      ],
      options.env ? { env: options.env } : {},
    );
    return { ...run, client: new Client({ apiUrl: run.url }) };
  };
  const first = await start();
  const rest = await Promise.all(Array.from({ length: options.count - 1 }, () => start()));
  return [first, ...rest];
}

/**
 * The process that executes `runId` — the one whose lease owner (`host:pid:uuid`) names its pid — once
 * the run is running.
 */
export async function executorOf<S extends ServeProcess>(storage: Storage, servers: S[], runId: string): Promise<S> {
  for (;;) {
    const lease = (await storage.runs.listLeases(100)).find((l) => l.run.run_id === runId);
    const pid = lease ? Number(lease.owner.split(":").at(-2)) : undefined;
    const server = servers.find((s) => s.child.pid === pid);
    if (server) return server;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
