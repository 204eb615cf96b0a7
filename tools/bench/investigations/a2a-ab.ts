/**
 * Ours against the lean a2a-js + LangGraph peer (and, with --baseline, ours at another checkout), A2A
 * SendMessage in a new context, in interleaved rounds: each server in turn, so the machine's drift over the
 * minutes falls on all of them alike. Per round and server: sequential p50 and the server's CPU per message
 * (from /proc), then throughput at 16 and 64 in flight. Prints the medians over the rounds.
 *
 *   npx tsx tools/bench/investigations/a2a-ab.ts [--rounds 6] [--postgres] [--baseline <checkout>] [--sealed]
 *     [--sample] [--no-peers] [--cpu-prof <dir>] [--paired <messages> [--block 50]]
 *
 * --sealed adds ours with LANGGRAPH_AES_KEY (encryption at rest's cost); --also-args="<serve flags>" ours with
 * those flags (e.g. "--workers 64"); --also-node-args="<node flags>" ours under those Node/V8 flags (e.g.
 * "--max-semi-space-size=32"); --sample the bench's other peer.
 *
 * --paired replaces the rounds with one paired run of sequential messages (`measurePaired`): blocks of
 * --block messages (50) to each server in turn. Prints each server's p50 and CPU per message, and for every
 * other server the median of the block p50 differences from ours (negative: ours faster) with the share of
 * blocks ours was faster in.
 *
 * --cpu-prof writes V8 profiles of every server (ours and the peers) into <dir>, to read with DevTools or
 * profile-turns.ts' --self mode.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { concurrent } from "../src/measure.js";
import { A2A_LANGGRAPH, ensureInstalled } from "../src/peers/install.js";
import { openBenchPostgres, type BenchPostgres } from "../src/postgres.js";
import { runScript } from "../src/processes.js";
import { a2aClient, expectCompletedEcho, helloMessage } from "../src/scenarios/a2a.js";
import { startA2aLangGraphServer, type A2aLangGraphVariant } from "../src/servers/a2a-langgraph.js";
import { startOurServer } from "../src/servers/ours.js";
import type { RunningServer } from "../src/servers/running-server.js";

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    rounds: { type: "string", default: "6" },
    postgres: { type: "boolean", default: false },
    baseline: { type: "string" },
    sample: { type: "boolean", default: false },
    sealed: { type: "boolean", default: false },
    "also-args": { type: "string" },
    "also-node-args": { type: "string" },
    peers: { type: "boolean", default: true },
    "cpu-prof": { type: "string" },
    sequential: { type: "string", default: "300" },
    paired: { type: "string" },
    block: { type: "string", default: "50" },
    seconds: { type: "string", default: "3" },
  },
});
const ROUNDS = Number(args.rounds);
const SEQUENTIAL = Number(args.sequential);
const SECONDS = Number(args.seconds);

interface Contender {
  label: string;
  start(): Promise<RunningServer>;
}

interface RoundFigures {
  p50: number;
  cpuMsPerMessage: number;
  at16: number;
  at64: number;
}

const CLOCK_TICKS_PER_MS = 100 / 1000;

/** utime + stime of a process, ms (its threads included). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS;
}

/** A sequential A2A sender to `server` that checks each answer, warmed up by 100 messages. */
async function warmSender(server: RunningServer): Promise<() => Promise<void>> {
  const client = await a2aClient(server);
  const send = async () => {
    expectCompletedEcho(await client.sendMessage(helloMessage()));
  };
  for (let i = 0; i < 100; i += 1) await send();
  return send;
}

async function measure(server: RunningServer): Promise<RoundFigures> {
  const send = await warmSender(server);
  const samples: number[] = [];
  const cpuBefore = cpuMs(server.pid);
  for (let i = 0; i < SEQUENTIAL; i += 1) {
    const started = performance.now();
    await send();
    samples.push(performance.now() - started);
  }
  const cpuMsPerMessage = (cpuMs(server.pid) - cpuBefore) / SEQUENTIAL;
  samples.sort((a, b) => a - b);
  const budget = (c: number) => ({ minOps: 2 * c, maxOps: 1_000 * c, maxSeconds: SECONDS });
  const at16 = (await concurrent(send, budget(16), 16)).opsPerSec;
  const at64 = (await concurrent(send, budget(64), 64)).opsPerSec;
  return { p50: samples[Math.floor(samples.length / 2)]!, cpuMsPerMessage, at16, at64 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function contenders(postgres: BenchPostgres | undefined): Contender[] {
  const nodeArgs = args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${args["cpu-prof"]}`] : undefined;
  const ours = (label: string, checkout?: string, sealed = false, extra?: string[], extraNode: string[] = []): Contender => ({
    label,
    start: () => {
      const withNodeArgs = [...(nodeArgs ?? []), ...extraNode];
      return postgres
        ? startOurServer({
            storage: "postgres",
            checkout,
            sealed,
            databaseUrl: postgres.url,
            databaseSchema: postgres.newSchema("ab"),
            nodeArgs: withNodeArgs,
            args: extra,
          })
        : startOurServer({
            storage: "sqlite",
            checkout,
            sealed,
            dataDir: mkdtempSync(join(tmpdir(), "ab-ours-")),
            nodeArgs: withNodeArgs,
            args: extra,
          });
    },
  });
  const peer = (variant: A2aLangGraphVariant): Contender => ({
    label: `peer ${variant}`,
    start: () =>
      startA2aLangGraphServer(
        postgres
          ? { kind: "postgres", url: postgres.url, schema: postgres.newSchema("ab_peer") }
          : { kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "ab-peer-")), "checkpoints.sqlite") },
        variant,
        nodeArgs,
      ),
  });
  return [
    ours("ours"),
    ...(args.baseline ? [ours("ours (baseline)", args.baseline)] : []),
    ...(args.sealed ? [ours("ours (LANGGRAPH_AES_KEY)", undefined, true)] : []),
    ...(args["also-args"] ? [ours(`ours ${args["also-args"]}`, undefined, false, args["also-args"].split(" "))] : []),
    ...(args["also-node-args"]
      ? [ours(`ours node ${args["also-node-args"]}`, undefined, false, undefined, args["also-node-args"].split(" "))]
      : []),
    ...(args.peers ? [peer("lean")] : []),
    ...(args.sample ? [peer("sample")] : []),
  ];
}

/**
 * The --paired run: every server up at once, sequential messages in blocks of `block` to each server in
 * turn (rotated), so the machine's drift, even within seconds, falls on all of them alike; blocks rather
 * than single messages, so each server answers warm, as one serving alone does (alternating every message
 * leaves the larger server's code and data cold in the CPU caches the other just used).
 */
async function measurePaired(labels: string[], servers: RunningServer[], messages: number, block: number): Promise<void> {
  const sends = [];
  for (const server of servers) sends.push(await warmSender(server));
  const latencies = servers.map((): number[] => []);
  const blockMedians = servers.map((): number[] => []);
  const cpuBefore = servers.map((server) => cpuMs(server.pid));
  for (let b = 0; b < Math.ceil(messages / block); b += 1) {
    for (let j = 0; j < servers.length; j += 1) {
      const at = (b + j) % servers.length;
      const samples: number[] = [];
      for (let i = 0; i < block; i += 1) {
        const started = performance.now();
        await sends[at]!();
        samples.push(performance.now() - started);
      }
      latencies[at]!.push(...samples);
      blockMedians[at]!.push(median(samples));
    }
  }
  const sent = latencies[0]!.length;
  const cpu = servers.map((server, at) => (cpuMs(server.pid) - cpuBefore[at]!) / sent);
  console.log(`\npaired, ${sent} messages to each server in blocks of ${block}, in turn (${args.postgres ? "PostgreSQL" : "SQLite"}):`);
  console.log(
    "| server | p50 ms | server CPU ms/msg | median of block p50 differences from ours, ms | blocks ours was faster in |\n|---|---|---|---|---|",
  );
  labels.forEach((label, at) => {
    const differences = blockMedians[0]!.map((ours, i) => ours - blockMedians[at]![i]!);
    const faster = differences.filter((d) => d < 0).length / differences.length;
    const versus = at === 0 ? "– | –" : `${median(differences).toFixed(3)} | ${(faster * 100).toFixed(0)} %`;
    console.log(`| ${label} | ${median(latencies[at]!).toFixed(2)} | ${cpu[at]!.toFixed(2)} | ${versus} |`);
  });
}

/** The rounds: each server in turn measured by `measure`, then the medians over the rounds. */
async function measureRounds(labels: string[], servers: RunningServer[]): Promise<void> {
  const figures = new Map<string, RoundFigures[]>(labels.map((label) => [label, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotated, so no server is always first after the others' load.
    for (let i = 0; i < labels.length; i += 1) {
      const at = (i + round) % labels.length;
      const result = await measure(servers[at]!);
      figures.get(labels[at]!)!.push(result);
      console.log(
        `round ${round + 1} ${labels[at]!}: p50 ${result.p50.toFixed(2)} ms, cpu ${result.cpuMsPerMessage.toFixed(2)} ms/msg, 16: ${result.at16.toFixed(0)}/s, 64: ${result.at64.toFixed(0)}/s`,
      );
    }
  }
  console.log(`\nmedians over ${ROUNDS} rounds (${args.postgres ? "PostgreSQL" : "SQLite"}):`);
  console.log("| server | p50 ms | server CPU ms/msg | 16 concurrent ops/s | 64 concurrent ops/s |\n|---|---|---|---|---|");
  for (const [label, rounds] of figures) {
    const m = (pick: (r: RoundFigures) => number, digits: number) => median(rounds.map(pick)).toFixed(digits);
    console.log(
      `| ${label} | ${m((r) => r.p50, 2)} | ${m((r) => r.cpuMsPerMessage, 2)} | ${m((r) => r.at16, 0)} | ${m((r) => r.at64, 0)} |`,
    );
  }
}

async function main(): Promise<void> {
  await ensureInstalled(A2A_LANGGRAPH);
  const postgres = args.postgres ? await openBenchPostgres() : undefined;
  const all = contenders(postgres);
  const labels = all.map((c) => c.label);
  const servers = [];
  for (const contender of all) servers.push(await contender.start());
  try {
    if (args.paired) await measurePaired(labels, servers, Number(args.paired), Number(args.block));
    else await measureRounds(labels, servers);
  } finally {
    for (const server of servers) await server.stop();
  }
}

await runScript(main);
