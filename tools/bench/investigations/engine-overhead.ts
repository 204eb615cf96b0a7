/**
 * What the engine adds to a graph call, in one process and on the same storage: the engine's durable run
 * of the examples' echo graph on a new thread (`createRunAndWait`: admission, execution, settlement, the
 * waiter) against LangGraph's bare `graph.invoke` of the same graph with LangGraph's own saver (SqliteSaver on
 * a file for `sqlite`, MemorySaver for `memory`): what the lean a2a-js + LangGraph peer does per message,
 * without HTTP on either side. Blocks of runs alternate, so the machine's drift falls on both alike.
 * Prints p50 latency and the process's CPU per run (worker threads included) for each.
 *
 *   npx tsx tools/bench/investigations/engine-overhead.ts [--driver sqlite|memory] [--rounds 6] [--runs 300]
 *     [--windows <file>]
 *
 * --windows writes each block's bounds (µs of the monotonic clock, a `--cpu-prof` profile's clock) so that a
 * profile of this process can be split into the engine's blocks and the bare calls' blocks.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Storage } from "@agent-server/core";
import { Engine } from "@agent-server/engine";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { graph as echo } from "../../../examples/src/echo.js";
import { latencyStats } from "../src/measure.js";

const { values: args } = parseArgs({
  options: {
    driver: { type: "string", default: "sqlite" },
    rounds: { type: "string", default: "6" },
    runs: { type: "string", default: "300" },
    windows: { type: "string" },
  },
});
const rounds = Number(args.rounds);
const runsPerBlock = Number(args.runs);
const dir = mkdtempSync(join(tmpdir(), "engine-overhead-"));

async function openStorage(): Promise<Storage> {
  if (args.driver === "memory") return createMemoryStorage();
  if (args.driver === "sqlite") return openSqliteStorage({ path: join(dir, "agent-server.sqlite") });
  throw new Error(`--driver memory|sqlite, got '${args.driver}'`);
}

const storage = await openStorage();
const engine = new Engine({ storage, workers: 10 });
engine.registry.register("echo", echo);
await engine.start();
const saver = args.driver === "memory" ? new MemorySaver() : SqliteSaver.fromConnString(join(dir, "peer.sqlite"));
const bare = echo.builder.compile({ checkpointer: saver });
const input = { messages: [{ role: "user", content: "hi" }] };

const contenders = {
  engine: async () => {
    const threadId = crypto.randomUUID();
    await engine.createRunAndWait({ assistant_id: "echo", input }, { threadId, createThread: { thread_id: threadId } });
  },
  "graph.invoke": async () => {
    await bare.invoke(input, { configurable: { thread_id: crypto.randomUUID() } });
  },
};
type Name = keyof typeof contenders;

for (let i = 0; i < 300; i += 1) for (const call of Object.values(contenders)) await call();
const latencies: Record<Name, number[]> = { engine: [], "graph.invoke": [] };
const cpuMs: Record<Name, number> = { engine: 0, "graph.invoke": 0 };
const windows: { name: Name; start: number; end: number; n: number }[] = [];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
for (let round = 0; round < rounds; round += 1) {
  for (const name of Object.keys(contenders) as Name[]) {
    const call = contenders[name];
    const start = monotonicUs();
    const cpuBefore = process.cpuUsage();
    for (let i = 0; i < runsPerBlock; i += 1) {
      const began = performance.now();
      await call();
      latencies[name].push(performance.now() - began);
    }
    const cpu = process.cpuUsage(cpuBefore);
    cpuMs[name] += (cpu.user + cpu.system) / 1000;
    windows.push({ name, start, end: monotonicUs(), n: runsPerBlock });
  }
}
for (const name of Object.keys(contenders) as Name[]) {
  const { p50, samples } = latencyStats(latencies[name]);
  console.log(`${name} (${args.driver}): p50 ${p50.toFixed(3)} ms, cpu ${(cpuMs[name] / samples).toFixed(3)} ms/run`);
}
if (args.windows) writeFileSync(args.windows, JSON.stringify(windows));
await engine.stop(0);
await storage.close();
rmSync(dir, { recursive: true, force: true });
