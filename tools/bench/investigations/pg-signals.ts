/**
 * The cost of cross-process signals on PostgreSQL (LISTEN/NOTIFY):
 * - signal latency between two drivers with their own pools (two processes' worth of connections):
 *   p50/p95 over `--events` signals of a small (values-sized) and a large (chunked) payload;
 * - the alternative design, each event appended to the event table, its id NOTIFYed and the row read back;
 * - with two real `agent-server serve` processes: cancel delivery (cancel through one, executor's thread
 *   idle) and wake-up of an idle worker (run admitted on a busy process, claimed by the other).
 *
 *   npx tsx tools/bench/investigations/pg-signals.ts [--events 200] [--rounds 10]
 *
 * Uses POSTGRES_URL, else starts an embedded server. Prints one line per measurement (ms).
 */
import { parseArgs } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { openPostgresStorage, type PostgresStorage } from "@agent-server/storage-postgres";
import { killAll, SCALE_OUT_PROJECT, startCli } from "@agent-server/server/testing";

const { values: args } = parseArgs({ options: { events: { type: "string", default: "200" }, rounds: { type: "string", default: "10" } } });
const eventCount = Number(args.events);
const rounds = Number(args.rounds);
const PROJECT = SCALE_OUT_PROJECT;

function stats(name: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  console.log(`${name}: n=${samples.length} p50=${at(0.5)} ms p95=${at(0.95)} ms max=${sorted.at(-1)!.toFixed(2)} ms`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function signalLatency(a: PostgresStorage, b: PostgresStorage, name: string, payload: unknown): Promise<void> {
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const stop = await b.signals.subscribe("bench", (p) => {
    latencies.push(performance.now() - sentAt.get((p as { n: number }).n)!);
    if (latencies.length === eventCount) done();
  });
  for (let n = 0; n < eventCount; n++) {
    sentAt.set(n, performance.now());
    void a.signals.publish("bench", { n, payload });
    await sleep(5);
  }
  await all;
  stop();
  stats(`signal latency, ${name}`, latencies);
}

async function tableLatency(a: PostgresStorage, b: PostgresStorage, payload: unknown): Promise<void> {
  const runId = crypto.randomUUID();
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  let last: string | undefined;
  let reading = Promise.resolve();
  const stop = await b.signals.subscribe("bench-ids", () => {
    // Each pointer makes the receiver read what is new since the last row it read, in order.
    reading = reading.then(async () => {
      for (const row of await b.events.list(runId, { after: last })) {
        last = row.id;
        latencies.push(performance.now() - sentAt.get(row.id)!);
        if (latencies.length === eventCount) done();
      }
    });
  });
  for (let n = 0; n < eventCount; n++) {
    const started = performance.now();
    const stored = await a.events.append(runId, "values", { n, payload }, { ttlMs: 60_000 });
    sentAt.set(stored.id, started);
    void a.signals.publish("bench-ids", { id: stored.id });
    await sleep(5);
  }
  await all;
  stop();
  stats("event table + NOTIFY id + read, small payload", latencies);
}

async function publishThroughput(a: PostgresStorage, payload: unknown): Promise<void> {
  let started = performance.now();
  await Promise.all(Array.from({ length: 2000 }, (_, n) => a.signals.publish("nobody", { n, payload })));
  console.log(`publish, not awaited one by one: ${(2000 / ((performance.now() - started) / 1000)).toFixed(0)} signals/s`);
  started = performance.now();
  for (let n = 0; n < 500; n++) await a.signals.publish("nobody", { n, payload });
  console.log(`publish, awaited one by one: ${((performance.now() - started) / 500).toFixed(3)} ms each`);
  const runId = crypto.randomUUID();
  started = performance.now();
  for (let n = 0; n < 500; n++) await a.events.append(runId, "values", { n, payload }, { ttlMs: 60_000 });
  console.log(`EventRepo.append, awaited one by one: ${((performance.now() - started) / 500).toFixed(3)} ms each`);
}

async function processes(url: string, schema: string): Promise<void> {
  const serve = async () => {
    const run = await startCli(
      [
        ...["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--workers", "1"],
        ...["--storage", "postgres", "--database-url", url, "--database-schema", schema],
      ],
      { env: {} },
    );
    return { ...run, client: new Client({ apiUrl: run.url }) };
  };
  const first = await serve();
  const second = await serve();
  const servers = [first, second];
  const storage = await openPostgresStorage({ connectionString: url, schema });
  const executorOf = async (runId: string) => {
    while (true) {
      const lease = (await storage.runs.listLeases(100)).find((l) => l.run.run_id === runId);
      const server = servers.find((s) => lease && s.child.pid === Number(lease.owner.split(":").at(-2)));
      if (server) return server;
      await sleep(2);
    }
  };
  try {
    const cancels: number[] = [];
    const wakes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const thread = await first.client.threads.create();
      const run = await first.client.runs.create(thread.thread_id, "slow", { input: { ms: 60_000 } });
      const executor = await executorOf(run.run_id);
      const other = servers.find((s) => s !== executor)!;
      // Wake-up: the executor is busy (1 worker), so only the other process can claim this one.
      const t2 = await executor.client.threads.create();
      const started = performance.now();
      const short = await executor.client.runs.create(t2.thread_id, "slow", { input: { ms: 1 } });
      await executorOf(short.run_id).catch(() => undefined);
      wakes.push(performance.now() - started);
      await other.client.runs.join(t2.thread_id, short.run_id);
      // Cancel delivery: through the other process, until the executor has settled the run (thread idle).
      const cancelAt = performance.now();
      await other.client.runs.cancel(thread.thread_id, run.run_id, false, "interrupt");
      while ((await storage.threads.get(thread.thread_id))?.status !== "idle") await sleep(2);
      cancels.push(performance.now() - cancelAt);
    }
    stats("wake-up: run admitted on a busy process until the idle one holds it", wakes);
    stats("cancel through another process until its executor settled it", cancels);
  } finally {
    await storage.close();
    await killAll();
  }
}

async function main(): Promise<void> {
  const { postgresForScript } = await import("@agent-server/testing/postgres");
  const { url, stop } = await postgresForScript();
  try {
    const schema = `bench_${Date.now().toString(36)}`;
    const a = await openPostgresStorage({ connectionString: url, schema });
    const b = await openPostgresStorage({ connectionString: url, schema });
    const small = { messages: [{ type: "human", content: "x".repeat(400) }], steps: ["plan", "work"] };
    const large = { text: "y".repeat(40_000) };
    await signalLatency(a, b, "small payload (~0.5 KB)", small);
    await signalLatency(a, b, "large payload (~40 KB, 6 chunks)", large);
    await tableLatency(a, b, small);
    await publishThroughput(a, small);
    await a.close();
    await b.close();
    await processes(url, schema);
  } finally {
    await stop();
  }
}

await main();
