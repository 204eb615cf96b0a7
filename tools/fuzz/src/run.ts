/**
 * The long fuzz run (`npm run fuzz`, from the repository root or tools/fuzz):
 *
 *   FUZZ_RUNS=2000 FUZZ_SEED=42 FUZZ_TIME_MS=1800000 npm run fuzz
 *
 * - FUZZ_RUNS     requests per target (A2A JSON-RPC targets ×6), default 200
 * - FUZZ_SEED     campaign seed, default random (printed)
 * - FUZZ_TIME_MS  overall time budget per server, default 10 minutes
 * - FUZZ_TIMEOUT_MS  per-request limit, default 5000
 * - FUZZ_AUTH     "1" owner auth only, "0" no auth only, unset both
 * - FUZZ_ONLY     a substring of the target names to run (e.g. "A2A", "/threads/{thread_id}/runs"); the fixed
 *                 sweep of deep and wide A2A input runs first unless FUZZ_ONLY excludes "A2A deep and wide input"
 * - FUZZ_REPLAY   "<target>@<seed>:<path>" from a failure's report: replays that one request and lets
 *                 fast-check shrink it to a minimal reproduction (against a fresh server)
 * - FUZZ_OUT      also write the markdown summary to this file
 *
 * Prints a markdown summary (requests per route, status histogram, distinct failures with reproductions)
 * for docs/reliability.md; exits 1 when there are failures.
 */
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { formatReport } from "./report.js";
import { openFuzzSession } from "./fuzz-session.js";
import { Campaign } from "./campaign.js";

const env = process.env;
const runs = Number(env.FUZZ_RUNS ?? 200);
const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const timeBudgetMs = Number(env.FUZZ_TIME_MS ?? 600_000);
const requestTimeoutMs = Number(env.FUZZ_TIMEOUT_MS ?? 5_000);
const modes = env.FUZZ_AUTH === "1" ? [true] : env.FUZZ_AUTH === "0" ? [false] : [true, false];

async function replay(spec: string): Promise<void> {
  const match = /^(.*)@(-?\d+):(.+)$/.exec(spec);
  if (!match) throw new Error(`FUZZ_REPLAY must be "<target>@<seed>:<path>", got ${spec}`);
  const [, name, replaySeed, path] = match;
  for (const auth of modes) {
    const session = await openFuzzSession({ auth });
    try {
      const target = session.targets.find((t) => t.name === name);
      if (!target) throw new Error(`no target named ${name}`);
      const campaign = new Campaign(session.server, session.world, { runsPerTarget: 1, seed: 0, timeBudgetMs: 60_000, requestTimeoutMs });
      const result = await fc.check(
        fc.asyncProperty(
          target.arbitrary,
          async (request) => (await campaign.exchange(request, { target: name!, seed: 0, path: "" })).length === 0,
        ),
        { seed: Number(replaySeed), path: path!, endOnFailure: false },
      );
      campaign.close();
      console.log(`${auth ? "owner auth" : "no auth"}: ${result.failed ? "reproduced; minimal request:" : "did not reproduce"}`);
      if (result.counterexample) console.log(JSON.stringify(result.counterexample[0], null, 2).slice(0, 4000));
    } finally {
      await session.close();
    }
  }
}

async function main(): Promise<number> {
  if (env.FUZZ_REPLAY) {
    await replay(env.FUZZ_REPLAY);
    return 0;
  }
  const only = env.FUZZ_ONLY;
  let failures = 0;
  const summaries: string[] = [];
  for (const auth of modes) {
    const session = await openFuzzSession({ auth });
    try {
      if (!only || "A2A deep and wide input".includes(only)) {
        const sweep = await session.bulkSweep({ runsPerTarget: 1, seed, timeBudgetMs, requestTimeoutMs });
        summaries.push(formatReport(sweep));
        console.log(summaries.at(-1));
        failures += sweep.failures.length;
      }
      const report = await session.campaign(
        { runsPerTarget: runs, seed, timeBudgetMs, requestTimeoutMs, log: (line) => console.error(line) },
        only ? (t) => t.name.includes(only) : undefined,
      );
      const summary = formatReport(report);
      summaries.push(summary);
      console.log(summary);
      failures += report.failures.length;
    } finally {
      await session.close();
    }
  }
  if (env.FUZZ_OUT) writeFileSync(env.FUZZ_OUT, summaries.join("\n"));
  return failures > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
