import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { Client } from "@langchain/langgraph-sdk";
import type { Storage } from "@agent-server/core";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { SQLITE_FILE } from "@agent-server/server";
import { sequential } from "../measure.js";
import { sleep } from "../processes.js";
import type { BenchPostgres } from "../postgres.js";
import { a2aClient, expectCompletedEcho } from "../scenarios/a2a.js";
import { expectEcho } from "../scenarios/sdk.js";
import { startOurServer } from "../servers/ours.js";
import { explainFailures, type RunningServer } from "../servers/running-server.js";
import { Seeder, type Probe } from "./seed.js";
import { GROWTH_OPERATIONS, type GrowthDriver, type GrowthOperation, type GrowthResult } from "../results.js";

export interface GrowthOptions {
  driver: GrowthDriver;
  sizes: number[];
  rounds: number;
  /** PostgreSQL: where a schema of its own is created. */
  postgres?: BenchPostgres;
}

/**
 * One `serve` process over a store that grows in place (seeded through the driver from this process,
 * while the server idles) to each size in turn; at each size the three reads go through HTTP with the
 * official clients, `rounds` times each after ten unmeasured ones.
 */
export async function measureGrowth(options: GrowthOptions): Promise<GrowthResult[]> {
  const opened = await openStore(options);
  let server: RunningServer | undefined;
  try {
    const running = (server = await startOurServer(opened.serverOptions));
    return await explainFailures(running, () => measureReads(running, opened.storage, options));
  } finally {
    await server?.stop();
    await opened.dispose();
  }
}

async function measureReads(server: RunningServer, storage: Storage, options: GrowthOptions): Promise<GrowthResult[]> {
  const sdk = new Client({ apiUrl: server.url });
  const [assistant] = await sdk.assistants.search({ graphId: "echo", limit: 1 });
  if (!assistant) throw new Error("the echo assistant is missing");
  const a2a = await a2aClient(server);
  const seeder = new Seeder(storage, assistant.assistant_id, options.driver === "postgres" ? 8 : 1);
  const results: GrowthResult[] = [];
  for (const size of [...options.sizes].sort((a, b) => a - b)) {
    const started = performance.now();
    await seeder.growTo(size);
    const seedSeconds = (performance.now() - started) / 1000;
    // Seeding SQLite keeps this process's event loop busy for seconds, past the server's keep-alive timeout:
    // let the clients' sockets see their close before reusing them (else "other side closed").
    await sleep(100);
    const probe = seeder.probe();
    const reads: Record<GrowthOperation, () => Promise<void>> = {
      GetTask: async () => void expectCompletedEcho(await a2a.getTask({ tenant: "", id: probe.taskId })),
      "ListTasks (one context)": async () => expectOneTask(await a2a.listTasks(listRequest(probe)), probe),
      "thread state": async () => expectEcho((await sdk.threads.getState(probe.threadId)).values),
    };
    for (const operation of GROWTH_OPERATIONS) {
      const budget = { minOps: options.rounds, maxOps: options.rounds, maxSeconds: 0 };
      const latency = await sequential(reads[operation], budget, { minOps: 10, maxOps: 200, maxSeconds: 0.3 });
      results.push({ driver: options.driver, operation, runs: seeder.seededRuns, latency, seedSeconds });
    }
  }
  return results;
}

function listRequest(probe: Probe) {
  return {
    tenant: "",
    contextId: probe.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 50,
    pageToken: "",
    statusTimestampAfter: undefined,
  };
}

function expectOneTask(response: { tasks: { id: string }[] }, probe: Probe): void {
  if (response.tasks.length !== 1 || response.tasks[0]!.id !== probe.taskId) {
    throw new Error(`ListTasks of context ${probe.contextId}: ${JSON.stringify(response).slice(0, 500)}`);
  }
}

interface OpenedStore {
  storage: Storage;
  serverOptions: Parameters<typeof startOurServer>[0];
  dispose(): Promise<void>;
}

async function openStore(options: GrowthOptions): Promise<OpenedStore> {
  if (options.driver === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-growth-"));
    const storage = await openSqliteStorage({ path: join(dir, SQLITE_FILE) });
    return {
      storage,
      serverOptions: { storage: "sqlite", dataDir: dir },
      dispose: async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!options.postgres) throw new Error("growth on postgres needs a PostgreSQL");
  const { url } = options.postgres;
  const schema = options.postgres.newSchema("bench_growth");
  const storage = await openPostgresStorage({ connectionString: url, schema });
  return {
    storage,
    serverOptions: { storage: "postgres", databaseUrl: url, databaseSchema: schema },
    dispose: () => storage.close(),
  };
}
