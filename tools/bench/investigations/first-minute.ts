/**
 * What a user's first minute costs: A2A SendMessage p50 of a `serve` started moments ago (a fresh SQLite
 * data dir, so the graphs' schemas are read from source in a worker thread meanwhile), then the same once
 * that extraction is done; with --baseline, the same for ours at another checkout, alternately.
 *
 *   npx tsx tools/bench/investigations/first-minute.ts [--rounds 3] [--baseline <checkout>]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runScript } from "../src/processes.js";
import { a2aClient, expectCompletedEcho, helloMessage } from "../src/scenarios/a2a.js";
import { schemasExtracted, startOurServer } from "../src/servers/ours.js";
import type { RunningServer } from "../src/servers/running-server.js";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, baseline: { type: "string" }, sequential: { type: "string", default: "200" } },
});

async function p50(server: RunningServer): Promise<number> {
  const client = await a2aClient(server);
  const samples: number[] = [];
  for (let i = 0; i < Number(args.sequential); i += 1) {
    const started = performance.now();
    expectCompletedEcho(await client.sendMessage(helloMessage()));
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

async function main(): Promise<void> {
  const checkouts: [string, string | undefined][] = [
    ["ours", undefined],
    ...(args.baseline ? [["ours (baseline)", args.baseline] as [string, string]] : []),
  ];
  for (let round = 0; round < Number(args.rounds); round += 1) {
    for (const [label, checkout] of checkouts) {
      const dataDir = mkdtempSync(join(tmpdir(), "first-minute-"));
      const server = await startOurServer({ storage: "sqlite", dataDir, checkout, waitForSchemas: false });
      try {
        const atStart = await p50(server);
        await schemasExtracted(server.url);
        const after = await p50(server);
        console.log(`round ${round + 1} ${label}: p50 at start ${atStart.toFixed(2)} ms, after extraction ${after.toFixed(2)} ms`);
      } finally {
        await server.stop();
      }
    }
  }
}

await runScript(main);
