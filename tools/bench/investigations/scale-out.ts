/**
 * Throughput of 1, 2 and 3 `agent-server serve` processes over one PostgreSQL, and what the
 * cross-process signals cost and buy:
 * - `signals`: the PostgreSQL driver as shipped (LISTEN/NOTIFY between processes);
 * - `process-only`: the same driver with its signals kept within each process
 *   (tools/bench/investigations/drivers/postgres-process-signals.ts), so hand-overs between processes wait for the
 *   fallback poll (1 s) — the NOTIFY traffic is gone, so at 1 process the difference is their cost.
 *
 * The load, as behind a round-robin load balancer: `--runs` runs of the `steps` graph (four nodes, no
 * sleep), `--concurrency` at a time; each creates a thread and waits for its run (`runs.wait`), both
 * through the next process in turn, whichever process executes it. Each process has `--workers`.
 *
 *   npx tsx tools/bench/investigations/scale-out.ts [--runs 200] [--concurrency 8] [--workers 10] [--processes 1,2,3] [--rounds 3]
 *
 * Uses POSTGRES_URL, else starts an embedded server; a schema and a set of processes per configuration,
 * loaded `--rounds` times (the machine is shared: one round is noise). Prints one line per configuration:
 * the median round's runs/s, the range, and the run latency of all rounds.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { openPostgresStorage } from "@agent-server/storage-postgres";
import { jsonLines, killAll, SCALE_OUT_PROJECT, startServeProcesses, type ServeProcess } from "@agent-server/server/testing";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    concurrency: { type: "string", default: "8" },
    workers: { type: "string", default: "10" },
    processes: { type: "string", default: "1,2,3" },
    rounds: { type: "string", default: "3" },
  },
});
const RUNS = Number(args.runs);
const CONCURRENCY = Number(args.concurrency);
const WORKERS = Number(args.workers);
const PROCESS_COUNTS = args.processes.split(",").map(Number);
const ROUNDS = Number(args.rounds);
const PROJECT = SCALE_OUT_PROJECT;
const PROCESS_SIGNALS = fileURLToPath(new URL("./drivers/postgres-process-signals.ts", import.meta.url));

type Mode = "signals" | "process-only";

function percentile(sorted: number[], q: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
}

/** Runs `count` jobs, `concurrency` at a time; resolves with each job's latency (ms). */
async function load(servers: ServeProcess[], count: number, concurrency: number): Promise<number[]> {
  let next = 0;
  const latencies: number[] = [];
  const lane = async () => {
    while (next < count) {
      const client = servers[next % servers.length]!.client;
      next += 1;
      const started = performance.now();
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, "steps", {
        input: { messages: [{ role: "user", content: "bench" }], stepMs: 0 },
      })) as { steps?: string[] };
      if (values.steps?.length !== 4) throw new Error(`run did not complete: ${JSON.stringify(values)}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return latencies;
}

async function measure(url: string, mode: Mode, count: number): Promise<void> {
  const schema = `bench_scale_${mode.replace("-", "_")}_${count}_${Date.now().toString(36)}`;
  // The process-only driver does not take --database-url: migrate the schema through the real driver first.
  await (await openPostgresStorage({ connectionString: url, schema })).close();
  const servers = await startServeProcesses({
    config: PROJECT,
    databaseUrl: url,
    databaseSchema: schema,
    count,
    workers: WORKERS,
    ...(mode === "process-only"
      ? {
          storageModule: `${PROCESS_SIGNALS}:open`,
          env: { BENCH_DATABASE_URL: url, BENCH_DATABASE_SCHEMA: schema },
        }
      : {}),
  });
  try {
    // Warm-up: each process loads the graph and fills its pool.
    await load(servers, servers.length * 4, CONCURRENCY);
    const runsBefore = servers.map((s) => startedRuns(s));
    const rates: number[] = [];
    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      latencies.push(...(await load(servers, RUNS, CONCURRENCY)));
      rates.push(RUNS / ((performance.now() - started) / 1000));
    }
    rates.sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);
    const executed = servers.map((s, i) => startedRuns(s) - runsBefore[i]!);
    console.log(
      `${mode}, ${count} process${count > 1 ? "es" : ""}: ${rates[Math.floor(rates.length / 2)]!.toFixed(1)} runs/s` +
        ` (rounds ${rates.map((r) => r.toFixed(1)).join(", ")}; run latency p50 ${percentile(latencies, 0.5)} ms,` +
        ` p95 ${percentile(latencies, 0.95)} ms; executed per process ${executed.join("/")})`,
    );
  } finally {
    await killAll();
  }
}

/** Runs this process has started, from its JSON logs. */
function startedRuns(server: ServeProcess): number {
  return jsonLines(server.stdout()).filter((l) => l.msg === "run started").length;
}

async function main(): Promise<void> {
  const { postgresForScript } = await import("@agent-server/testing/postgres");
  const { url, stop } = await postgresForScript();
  try {
    console.log(`${RUNS} runs, concurrency ${CONCURRENCY}, ${WORKERS} workers per process`);
    // Modes side by side for each process count, so the machine's drift falls between counts, not modes.
    for (const count of PROCESS_COUNTS) {
      for (const mode of ["signals", "process-only"] as const) await measure(url, mode, count);
    }
  } finally {
    await stop();
  }
}

await main();
