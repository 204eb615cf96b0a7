/**
 * The crash loop, as long as you like: a real `agent-server dev` on a real SQLite file, loaded with
 * LangGraph SDK runs and A2A messages on a four-node graph, SIGKILLed while runs are mid-way, restarted,
 * `--kills` times; then every run and task must have completed exactly once (see crashLoopProblems).
 * The short version runs in CI as apps/server/src/serve/crash-loop.test.ts.
 *
 *   npx tsx tools/reliability/crash-loop.ts [--kills 20] [--sdk 6] [--a2a 4] [--step-ms 150] [--jitter-ms 600]
 *
 * Prints one line per kill, the figures as JSON, and any breach; exits 1 on a breach.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { killAll } from "../../apps/server/test/support/cli-process.js";
import { crashLoopProblems, runCrashLoop } from "../../apps/server/test/support/crash-loop.js";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "20" },
    sdk: { type: "string", default: "6" },
    a2a: { type: "string", default: "4" },
    "step-ms": { type: "string", default: "150" },
    "jitter-ms": { type: "string", default: "600" },
  },
});

const dataDir = mkdtempSync(join(tmpdir(), "agent-server-crash-loop-"));
try {
  const report = await runCrashLoop({
    dataDir,
    kills: Number(values.kills),
    sdkRunsPerRound: Number(values.sdk),
    a2aMessagesPerRound: Number(values.a2a),
    stepMs: Number(values["step-ms"]),
    killJitterMs: Number(values["jitter-ms"]),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(report.figures));
  const problems = crashLoopProblems(report);
  for (const problem of problems) console.log(`BREACH ${problem}`);
  console.log(problems.length > 0 ? `${problems.length} breaches` : "no breach");
  process.exitCode = problems.length > 0 ? 1 : 0;
} finally {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
}
// The SDK clients keep sockets open: leave now, with the code set above (an exception leaves with 1).
process.exit();
