/**
 * What observability costs (issue 27): A2A SendMessage (new context) on SQLite, p50 of sequential calls
 * and throughput at 16 concurrent, in one run, for
 * - `today`: the version before metrics and traces (`--today <checkout>`: a worktree of that commit with
 *   its own `npm ci`), when given;
 * - `tracing off`: this version as it starts by default (metrics collected, nobody scraping, no tracing);
 * - `tracing on`: `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a receiver in this process (OTLP/HTTP
 *   protobuf, every span of every run exported; SQLite statements under 1 ms make none, the default);
 * - `tracing on, every SQLite statement`: the same with `AGENT_SERVER_TRACE_SQLITE_MIN_MS=0`;
 * - `metrics scraped 1/s`: the default with `GET /metrics` fetched every second while measuring.
 * Each configuration is a fresh `serve` process on its own SQLite folder; rounds rotate the order
 * (A B C D, B C D A, ...) so drift on the machine falls on every configuration alike. The server's CPU
 * time per send (of the concurrent phase, from /proc) is shown too: it moves much less than throughput
 * when something else on the machine takes a core for a while.
 *
 *   npx tsx tools/bench/investigations/observability.ts [--today <checkout>] [--only "<name>;<name>"] [--rounds 8] [--seconds 8]
 *
 * Prints a markdown table (median of the rounds) for docs/operations.md.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { concurrent, sequential } from "../src/measure.js";
import { cleanUp, onCleanUp } from "../src/processes.js";
import { a2aClient, expectCompletedEcho, helloMessage } from "../src/scenarios/a2a.js";
import { startOurServer } from "../src/servers/ours.js";

const { values: args } = parseArgs({
  options: {
    today: { type: "string" },
    only: { type: "string" },
    rounds: { type: "string", default: "8" },
    seconds: { type: "string", default: "8" },
  },
});
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);

interface Receiver {
  url: string;
  requests: number;
  bytes: number;
  close(): Promise<void>;
}

/** An OTLP/HTTP collector that accepts every export and keeps only counts. */
async function startReceiver(): Promise<Receiver> {
  const counts = { requests: 0, bytes: 0 };
  const server: Server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (counts.bytes += chunk.length));
    request.on("end", () => {
      counts.requests += 1;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return counts.requests;
    },
    get bytes() {
      return counts.bytes;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Configuration {
  name: string;
  checkout?: string;
  env?: (receiver: Receiver) => Record<string, string>;
  scrape?: boolean;
}

const allConfigurations: Configuration[] = [
  ...(args.today ? [{ name: "today", checkout: args.today }] : []),
  { name: "tracing off" },
  {
    name: "tracing on",
    env: (receiver) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }),
  },
  {
    name: "tracing on, every SQLite statement",
    env: (receiver) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      AGENT_SERVER_TRACE_SQLITE_MIN_MS: "0",
    }),
  },
  { name: "metrics scraped 1/s", scrape: true },
  {
    name: "tracing on, sampled 1 in 10",
    env: (receiver) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
    }),
  },
];
/** `--only "tracing off;tracing on"`: a subset, the first being the baseline. */
const only = args.only?.split(";").map((name) => name.trim());
const configurations = only
  ? only.map((name) => allConfigurations.find((c) => c.name === name) ?? fail(`no configuration "${name}"`))
  : allConfigurations;

function fail(message: string): never {
  throw new Error(message);
}

interface Sample {
  p50: number;
  opsPerSec: number;
  /** The server process's CPU time (user + system, all threads) per SendMessage of the concurrent phase. */
  cpuMsPerOp: number;
  scrapes: number;
}

/** CPU time a process has used so far, in ms (Linux /proc; clock ticks at 100 Hz). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After the command name: utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(configuration: Configuration, receiver: Receiver): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-observability-"));
  const removeDir = onCleanUp(async () => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startOurServer({
    storage: "sqlite",
    dataDir,
    ...(configuration.checkout ? { checkout: configuration.checkout } : {}),
    ...(configuration.env ? { env: configuration.env(receiver) } : {}),
  });
  let scrapes = 0;
  let scrapeFailed: unknown;
  const scraper = configuration.scrape
    ? setInterval(() => {
        fetch(`${server.url}/metrics`)
          .then(async (response) => {
            if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
            await response.text();
            scrapes += 1;
          })
          .catch((error: unknown) => (scrapeFailed ??= error));
      }, 1000)
    : undefined;
  try {
    const client = await a2aClient(server);
    const op = async () => void expectCompletedEcho(await client.sendMessage(helloMessage()));
    const latency = await sequential(op, { minOps: 200, maxOps: 2000, maxSeconds: seconds }, { minOps: 50, maxOps: 50, maxSeconds: 10 });
    const cpuBefore = processCpuMs(server.pid);
    const throughput = await concurrent(op, { minOps: 200, maxOps: 100_000, maxSeconds: seconds }, 16);
    const cpuMsPerOp = (processCpuMs(server.pid) - cpuBefore) / throughput.ops;
    if (scrapeFailed) throw scrapeFailed;
    return { p50: latency.p50, opsPerSec: throughput.opsPerSec, cpuMsPerOp, scrapes };
  } finally {
    clearInterval(scraper);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    removeDir();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  onCleanUp(() => receiver.close());
  const samples = new Map<string, Sample[]>(configurations.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    // Each configuration takes each position in turn: drift during a round falls on all of them alike.
    const order = configurations.map((_, i) => configurations[(i + round) % configurations.length]!);
    for (const configuration of order) {
      const sample = await measure(configuration, receiver);
      samples.get(configuration.name)!.push(sample);
      console.error(
        `round ${round + 1} ${configuration.name}: p50 ${sample.p50.toFixed(2)} ms, c16 ${sample.opsPerSec.toFixed(1)} ops/s, ` +
          `server CPU ${sample.cpuMsPerOp.toFixed(2)} ms/op` +
          (configuration.scrape ? `, ${sample.scrapes} scrapes` : ""),
      );
    }
  }
  const baseline = configurations[0]!.name;
  const of = (name: string, field: "p50" | "opsPerSec" | "cpuMsPerOp") => samples.get(name)!.map((s) => s[field]);
  const base = { p50: median(of(baseline, "p50")), rate: median(of(baseline, "opsPerSec")), cpu: median(of(baseline, "cpuMsPerOp")) };
  console.log(
    `| configuration | SendMessage p50 (rounds' range) | vs ${baseline} | 16-concurrent (rounds' range) | vs ${baseline} ` +
      `| server CPU per send (rounds' range) | vs ${baseline} |`,
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const { name } of configurations) {
    const p50s = of(name, "p50");
    const rates = of(name, "opsPerSec");
    const cpus = of(name, "cpuMsPerOp");
    const p50 = median(p50s);
    const rate = median(rates);
    const cpu = median(cpus);
    const pct = (value: number, of: number) => `${value >= of ? "+" : ""}${(((value - of) / of) * 100).toFixed(1)} %`;
    const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    console.log(
      `| ${name} | ${p50.toFixed(2)} ms (${range(p50s, 2)}) | ${pct(p50, base.p50)} | ${rate.toFixed(1)} ops/s (${range(rates, 0)}) | ${pct(rate, base.rate)} ` +
        `| ${cpu.toFixed(2)} ms (${range(cpus, 2)}) | ${pct(cpu, base.cpu)} |`,
    );
  }
  console.log(`\nOTLP receiver: ${receiver.requests} exports, ${(receiver.bytes / 1e6).toFixed(1)} MB; ${rounds} rounds, median shown.`);
}

process.on("SIGINT", () => void cleanUp().then(() => process.exit(130)));
try {
  await main();
} finally {
  await cleanUp();
}
